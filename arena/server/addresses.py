"""A bot's address as the server stores it: one spelling per endpoint, and
only what the arena can dial. gRPC accepts schemes (ipv4:, ipv6:, dns:) that
the arena's own parser may read as a command; they are dropped here, at
registration, so a competition never meets them."""

from __future__ import annotations

import os

from arena.errors import ConfigError
from arena.settings import EngineSpec

_SCHEMES = ("ipv4:", "ipv6:", "dns:///", "dns:")
_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def normalize_address(address: str) -> str:
    """HOST:PORT (names lowercased, localhost as 127.0.0.1), [IPV6]:PORT or
    unix:/ABSOLUTE/PATH; ConfigError saying why an address cannot be used."""
    text = address.strip()
    if text != address or not text.isprintable() or " " in text:
        raise ConfigError(f"address {address!r} has spaces or control characters")
    if text.startswith("unix:"):
        path = text[len("unix:") :]
        path = path[2:] if path.startswith("//") else path
        if not path.startswith("/"):
            raise ConfigError(f"address {address!r}: a Unix socket needs an absolute path")
        return "unix:" + os.path.normpath(path)
    for scheme in _SCHEMES:
        if text.startswith(scheme):
            text = text[len(scheme) :]
            break
    if text.startswith("//"):  # dns://AUTHORITY/HOST:PORT: the resolver is the server's business
        text = text[2:].partition("/")[2]
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(
            f"address {address!r}: expected HOST:PORT, [IPV6]:PORT or unix:/PATH "
            "with a port from 1 to 65535"
        )
    host = host.lower()
    if host in _LOOPBACK_NAMES:
        host = "127.0.0.1"
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # ipv6:::1:PORT, as gRPC also reads it
    normalized = f"{host}:{int(port)}"
    if EngineSpec.of("bot", normalized).kind != "address":
        raise ConfigError(f"address {address!r} is not one the arena can dial")
    return normalized
