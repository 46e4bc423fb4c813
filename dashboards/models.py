"""Models of the dashboards app."""
