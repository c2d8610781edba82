"""arena: a H.O.R.S.E. poker arena for bots."""

from arena.host import grpc_io as _grpc_io

__version__ = "0.1.0"

_grpc_io.install()  # gRPC's older I/O path for a later `import grpc` (arena/host/grpc_io.py)
