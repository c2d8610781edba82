"""The dealer server: gRPC transport (grpc.aio on asyncio) around the trio tables of arena.match."""
