"""Models of the collectors app."""
