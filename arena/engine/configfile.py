"""One parser for config files (rules, match and league): TOML tables into frozen dataclasses,
driven by the dataclass's fields and types, with the same clear errors everywhere.

Standard library only and no I/O, so that the rules engine can use it (arena/host/configfile.py
reads the files). Every error names the file, the key, the expected type and the allowed values;
floats must be finite (TOML allows ``nan`` and ``inf``); ranges are given per field as a
:class:`Check`.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import tomllib
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from arena.engine.errors import ConfigError

T = TypeVar("T")

MAX_FILE_BYTES = 4 * 1024 * 1024  # a config file larger than this is refused (read no further)
MAX_NESTING = 16  # tables and arrays nested deeper than this are refused


@dataclass(frozen=True, slots=True)
class Check:
    """The allowed values of one field: a closed range and/or a set of choices."""

    min: float | None = None
    max: float | None = None
    choices: tuple[Any, ...] = ()

    def describe(self) -> str:
        parts = []
        if self.choices:
            parts.append("one of " + ", ".join(repr(c) for c in self.choices))
        if self.min is not None and self.max is not None:
            parts.append(f"from {self.min:g} to {self.max:g}")
        elif self.min is not None:
            parts.append(f">= {self.min:g}")
        elif self.max is not None:
            parts.append(f"<= {self.max:g}")
        return " and ".join(parts)

    def allows(self, value: Any) -> bool:
        if self.choices and value not in self.choices:
            return False
        if isinstance(value, int | float) and not isinstance(value, bool):
            if self.min is not None and value < self.min:
                return False
            if self.max is not None and value > self.max:
                return False
        return True


PORT = Check(min=0, max=65535)  # 0: any free port (tests, the demo); else 1-65535


def parse_toml(raw: bytes, *, name: str, what: str = "config") -> tuple[dict[str, Any], str]:
    """The table and text of a TOML file's bytes (``name``: the file, for messages); any
    problem (too big, not UTF-8, not TOML, nested too deep) is a :class:`ConfigError`."""
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(f"{name}: larger than {MAX_FILE_BYTES} bytes; not a {what} file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{name}: not UTF-8 text (byte {exc.start}); a {what} file is TOML"
                          ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{name}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{name}: nested too deeply") from None
    if _depth(data) > MAX_NESTING:
        raise ConfigError(f"{name}: tables or arrays nested more than {MAX_NESTING} deep")
    return data, text


def _depth(value: Any) -> int:
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            return depth
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return deepest


def check_keys(data: Mapping[str, Any], known: set[str] | frozenset[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; "
                          f"known: {', '.join(sorted(known))}")


def table(data: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
    """``data[key]`` as a table (empty when absent)."""
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table ([{key}]), got {_show(value)}")
    return value


def tables(data: Mapping[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    """``data[key]`` as an array of tables (``[[key]]``; empty when absent)."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ConfigError(f"{where}: '{key}' must be an array of tables ([[{key}]]), "
                          f"got {_show(value)}")
    return value


FILLED_BY_CODE: Mapping[str, Any] = types.MappingProxyType({"file_key": False})
"""The metadata of a field the code fills (``field(..., metadata=FILLED_BY_CODE)``), e.g. from
other keys or from the file's own text: not a key of the file, so a file that names it is refused
and messages do not list it as known."""


def file_keys(cls: type[Any]) -> set[str]:
    """The keys of a file table read into ``cls``: its fields but private ones, those not given
    to ``__init__`` and those marked :data:`FILLED_BY_CODE`."""
    return {f.name for f in dataclasses.fields(cls)
            if f.init and not f.name.startswith("_") and f.metadata.get("file_key", True)}


def read_dataclass(cls: type[T], data: Mapping[str, Any], *, where: str,
                   checks: Mapping[str, Check] | None = None,
                   skip: frozenset[str] = frozenset(), **given: Any) -> T:
    """Build ``cls`` from a table: every key must be one of :func:`file_keys` (or in ``skip``,
    handled by the caller); each value must have the field's type and pass its :class:`Check`; absent fields
    keep the dataclass's default. ``given`` are fields the caller has already built (those
    :data:`FILLED_BY_CODE` among them)."""
    check_keys(data, file_keys(cls) | skip, where)
    hints = typing.get_type_hints(cls)
    checks = checks or {}
    kwargs: dict[str, Any] = dict(given)
    for key, value in data.items():
        if key in skip or key in given:
            continue
        kwargs[key] = convert(value, hints[key], key=key, where=where, check=checks.get(key))
    try:
        return cls(**kwargs)
    except TypeError as exc:  # a required field is missing
        raise ConfigError(f"{where}: {exc}") from None


def convert(value: Any, kind: Any, *, key: str, where: str, check: Check | None = None) -> Any:
    """``value`` as ``kind`` (int, float, bool, str, Path, an Enum of values, ``X | None``,
    ``tuple[X, ...]``)."""
    origin = typing.get_origin(kind)
    if origin in (types.UnionType, typing.Union):
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        if value is None or len(options) != 1:  # TOML has no null; None comes from code
            if value is None:
                return None
            raise ConfigError(f"{where}: unsupported field type for '{key}'")
        return convert(value, options[0], key=key, where=where, check=check)
    if origin is tuple:
        item_kind = typing.get_args(kind)[0]
        if not isinstance(value, list | tuple):
            raise _wrong(where, key, f"an array of {_name(item_kind)}", value, check)
        return tuple(convert(v, item_kind, key=key, where=where, check=check) for v in value)
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        allowed = [member.value for member in kind]
        if value not in allowed:
            raise _wrong(where, key, "a string", value, Check(choices=tuple(allowed)))
        return kind(value)
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _wrong(where, key, "a number", value, check)
        value = float(value)
        if not math.isfinite(value):
            raise _wrong(where, key, "a finite number", value, check)
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _wrong(where, key, "an integer", value, check)
    elif kind is bool:
        if not isinstance(value, bool):
            raise _wrong(where, key, "true or false", value, check)
    elif kind is str or kind is Path:
        if not isinstance(value, str):
            raise _wrong(where, key, "a string", value, check)
        if kind is Path:
            if not value or "\0" in value:
                raise _wrong(where, key, "a path", value, check)
            value = Path(value)
    else:
        raise ConfigError(f"{where}: unsupported field type {kind!r} for '{key}'")
    if check is not None and not check.allows(value):
        raise _wrong(where, key, _name(kind), value, check)
    return value


def _name(kind: Any) -> str:
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string",
            Path: "a path"}.get(kind, str(kind))


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _wrong(where: str, key: str, expected: str, value: Any, check: Check | None) -> ConfigError:
    if check is not None and check.choices and check.min is None and check.max is None:
        return ConfigError(f"{where}: '{key}' must be one of "
                           f"{', '.join(repr(c) for c in check.choices)}, got {_show(value)}")
    allowed = check.describe() if check is not None else ""
    return ConfigError(f"{where}: '{key}' must be {expected}"
                       + (f" ({allowed})" if allowed else "") + f", got {_show(value)}")


def require(condition: bool, where: str, message: str) -> None:
    """A check across fields, e.g. ``big_bet >= small_bet``."""
    if not condition:
        raise ConfigError(f"{where}: {message}")
