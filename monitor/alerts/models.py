"""Models of the alerts app."""
