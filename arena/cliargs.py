"""The `arena` command line's argument types: each checks one value and turns a bad one into
argparse's usage error (exit 2, one line naming the value)."""

from __future__ import annotations

import argparse


def count(text: str) -> int:
    """A number of hands: 1 to 100 million (argparse turns the error into a usage error)."""
    value = int(text)
    if not 1 <= value <= 100_000_000:
        raise argparse.ArgumentTypeError(f"must be from 1 to 100000000, got {value}")
    return value


def seat(text: str) -> int:
    """A seat index: 0 to 10 (the largest table, hold'em's, has 11 seats)."""
    value = int(text)
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"must be a seat from 0 to 10, got {value}")
    return value


def port(text: str) -> int:
    """A TCP port to listen on: 0 (a free one) to 65535 (argparse turns the error into a usage error)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be from 0 to 65535, got {value}")
    return value


def listen(text: str) -> str:
    """HOST:PORT to listen on, checked as a file's 'listen' is (a port past 65535 was bound
    modulo 65536)."""
    return _host_port(text, any_free_port=True)


def advertise(text: str) -> str:
    """HOST:PORT other workers connect to: as `listen`, but port 0 (any free one) names no port."""
    return _host_port(text, any_free_port=False)


def _host_port(text: str, *, any_free_port: bool) -> str:
    from arena.server.config import check_listen

    try:
        if int(check_listen(text, "").rpartition(":")[2]) > 0 or any_free_port:
            return text
    except ValueError:
        pass
    free = " (0: any free port)" if any_free_port else ""
    raise argparse.ArgumentTypeError(f"must be HOST:PORT with a port from 1 to 65535{free}, "
                                     f"got {text[:80]!r}")


def server_address(text: str) -> str:
    """The SDK's check of a dealer's HOST:PORT (the SDK is what dials it)."""
    from arena.host.sdk import sdk_module

    address: str = sdk_module("cli").server_address(text)
    return address
