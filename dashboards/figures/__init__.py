"""Plotly figure builders: pure functions, data in, figure dict out (no HTTP, no ORM)."""
