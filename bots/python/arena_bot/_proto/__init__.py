"""The generated wire contract (arena.v1), copied from arena/v1 by sync_protos.py."""
