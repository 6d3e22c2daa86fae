import hashlib
import secrets


def new_seed() -> str:
    return secrets.token_hex(16)


def commitment(seed: str) -> str:
    return hashlib.sha256(f"scopa-arena/seed-commitment/v1/{seed}".encode()).hexdigest()
