"""The gateway's and the MCP server's channel to the dealer: plain, or TLS with a root CA."""

from __future__ import annotations

from pathlib import Path

import grpc

from arena.server.peer_tls import read_pem


def dealer_channel(address: str, root_certificates: bytes | None) -> grpc.aio.Channel:
    """A channel to the dealer at ``address``: TLS checked against ``root_certificates`` (PEM)
    when given, as the SDK's ``--tls-ca`` does, else plain (loopback and private networks)."""
    if root_certificates is None:
        return grpc.aio.insecure_channel(address)
    return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials(root_certificates))


def read_ca(path: str | None) -> bytes | None:
    """The PEM file of ``--tls-ca`` (None: no TLS); a clear error when it cannot be used."""
    return None if path is None else read_pem(Path(path), "--tls-ca", "CERTIFICATE")
