"""The cap on concurrent WebSocket connections per client address."""

from __future__ import annotations


class ConnectionLimiter:
    """A cap on concurrent connections per client address."""

    def __init__(self, per_address: int) -> None:
        self.per_address = per_address
        self.counts: dict[str, int] = {}

    def acquire(self, address: str) -> bool:
        n = self.counts.get(address, 0)
        if n >= self.per_address:
            return False
        self.counts[address] = n + 1
        return True

    def release(self, address: str) -> None:
        n = self.counts.get(address, 1) - 1
        if n <= 0:
            self.counts.pop(address, None)
        else:
            self.counts[address] = n
