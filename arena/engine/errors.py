"""Errors of the rules engine, typed by cause; the transport maps each to a status code."""

from __future__ import annotations


class ArenaError(Exception):
    """Base class of every error the arena raises on purpose."""


class MalformedInput(ArenaError, ValueError):
    """Input that cannot be parsed: a card, an action, a PHH file."""


class MalformedAction(MalformedInput):
    """An action that is not of a known kind or lacks a needed amount."""


class IllegalAction(ArenaError, ValueError):
    """A well-formed action that the rules do not allow now."""


class AmountOutOfRange(IllegalAction):
    """A bet or raise whose "raise to" amount is not one of the legal amounts."""


class NotYourTurn(IllegalAction):
    """An action by a seat that is not the one to act."""


class StaleDecision(IllegalAction):
    """A reply to a decision that is no longer pending."""


class HandOver(IllegalAction):
    """An action sent after the hand has ended."""


class ConfigError(ArenaError, ValueError):
    """A bad configuration: unknown key, wrong type, out-of-range value."""


class ReplayMismatch(ArenaError):
    """A logged hand that does not replay to what the log says."""
