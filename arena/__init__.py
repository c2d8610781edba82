"""arena: a H.O.R.S.E. poker arena for bots."""

from arena.host import compiled as _compiled

__version__ = "0.1.0"

_compiled.install()  # the rules engine's mypyc build, when it is fresh (arena/host/compiled.py)
