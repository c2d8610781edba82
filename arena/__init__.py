"""arena: a H.O.R.S.E. poker arena for bots."""

__version__ = "0.1.0"
