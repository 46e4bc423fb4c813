"""A dbSTRESS-like workload driver: a known load to watch a server under."""
