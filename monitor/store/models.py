"""Models of the store app."""
