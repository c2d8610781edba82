"""Benchmarks (``python -m bench.NAME``); importing arena first gives every benchmark process
the gRPC I/O path the arena's own processes use (arena/host/grpc_io.py)."""

import arena  # noqa: F401
