"""Running the server: workers and liveness, garbage collection, metrics, catalog swaps."""
