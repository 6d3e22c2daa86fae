"""A bot's address as the server stores it: one spelling per endpoint
(arena.wire.protocol.address_spelling, the rule the partner check also
compares by), and only what the arena can dial. gRPC accepts schemes (ipv4:,
ipv6:, dns:) that the arena's own parser may read as a command; they are
dropped here, at registration, so a competition never meets them."""

from __future__ import annotations

from arena.errors import ConfigError
from arena.match.settings import AddressEngine, engine_spec
from arena.wire.protocol import address_spelling, unix_path


def normalize_address(address: str) -> str:
    """HOST:PORT (names lowercased, localhost as 127.0.0.1), [IPV6]:PORT or
    unix:/ABSOLUTE/PATH; ConfigError saying why an address cannot be used."""
    text = address.strip()
    if text != address or not text.isprintable() or " " in text:
        raise ConfigError(f"address {address!r} has spaces or control characters")
    path = unix_path(text)
    if path is not None and not path.startswith("/"):
        raise ConfigError(f"address {address!r}: a Unix socket needs an absolute path")
    try:
        normalized = address_spelling(text)
    except ValueError as e:
        raise ConfigError(f"address {address!r}: {e}") from None
    if not isinstance(engine_spec("bot", normalized), AddressEngine):
        raise ConfigError(f"address {address!r} is not one the arena can dial")
    return normalized
