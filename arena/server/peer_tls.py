"""Mutual TLS between workers: the port other workers' relays connect to, and the credentials of
both ends. Every worker holds a certificate of the league's own CA and refuses a peer without one."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

import grpc

from arena.engine.errors import ConfigError

PEER_SERVER_NAME = "arena-worker"  # the DNS name (subjectAltName) every worker certificate carries
MAX_PEM_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class PeerTls:
    """PEM file paths: this worker's certificate and key, and the CA that signed every worker's."""

    cert_path: Path
    key_path: Path
    ca_path: Path
    server_name: str = PEER_SERVER_NAME

    def load(self) -> PeerCredentials:
        """Read the files once (a bad one is a ConfigError naming it); the key must be owner-only."""
        check_key_file(self.key_path, "--peer-key")
        cert = read_pem(self.cert_path, "--peer-cert", "CERTIFICATE")
        key = read_pem(self.key_path, "--peer-key", "PRIVATE KEY")
        ca = read_pem(self.ca_path, "--peer-ca", "CERTIFICATE")
        return PeerCredentials(cert, key, ca, self.server_name)


@dataclass(frozen=True, slots=True)
class PeerCredentials:
    cert: bytes
    key: bytes
    ca: bytes
    server_name: str

    def server(self) -> grpc.ServerCredentials:
        """The peer port: only a client with a certificate of the CA gets through the handshake."""
        return grpc.ssl_server_credentials([(self.key, self.cert)], root_certificates=self.ca,
                                           require_client_auth=True)

    def channel(self) -> grpc.ChannelCredentials:
        """A relay's side: it checks the other worker's certificate and shows its own."""
        return grpc.ssl_channel_credentials(root_certificates=self.ca, private_key=self.key,
                                            certificate_chain=self.cert)

    def channel_options(self) -> list[tuple[str, str]]:
        """Workers are reached by address (a pod IP); their certificates name ``server_name``."""
        return [("grpc.ssl_target_name_override", self.server_name)]


def check_key_file(path: Path, what: str) -> None:
    """A private key must be readable by its owner only (chmod 600). As PostgreSQL accepts for its
    own key, a key owned by root may also be readable by its group (0640 or less): what a
    Kubernetes Secret mounted with ``fsGroup`` gives."""
    try:
        info = path.stat()
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ConfigError(f"{what} {path}: not a regular file")
    mode = stat.S_IMODE(info.st_mode)
    allowed = 0o640 if info.st_uid == 0 and os.geteuid() != 0 else 0o600
    if mode & ~allowed & 0o077:
        raise ConfigError(f"{what} {path}: a private key must be owner-only (chmod 600); its mode is "
                          f"{mode:04o}")
    if info.st_uid not in (os.geteuid(), 0):
        raise ConfigError(f"{what} {path}: owned by another user (uid {info.st_uid}); the key must "
                          "belong to the user running arena")


def read_pem(path: Path, what: str, kind: str) -> bytes:
    """A PEM file of ``kind`` named by option ``what``, at most MAX_PEM_BYTES; a ConfigError
    naming both when it cannot be used."""
    try:
        with path.open("rb") as fh:
            data = fh.read(MAX_PEM_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{what} {path}: {exc.strerror}") from None
    if len(data) > MAX_PEM_BYTES:
        raise ConfigError(f"{what} {path}: over {MAX_PEM_BYTES} bytes")
    if b"-----BEGIN " not in data or kind.encode() not in data:
        raise ConfigError(f"{what} {path}: not a PEM {kind.lower()} file")
    return data
