"""The SDK on sys.path, as for the dealer tests."""

from __future__ import annotations

from tests.server import conftest as _server_conftest  # noqa: F401 (puts bots/python on sys.path)
