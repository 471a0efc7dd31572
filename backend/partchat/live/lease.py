"""Turn ownership: a Redis key per session holding the owner's id, with a TTL.

Acquired with SET NX PX (only one server at a time); renewed and released only by the
owner that holds it, in one Lua script each, so a server whose lease expired and was
taken over cannot extend or delete the new owner's.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio import Redis

from partchat.live.keys import lease_key, text

_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class Leases:
    def __init__(self, client: Redis) -> None:
        self.client = client
        # register_script: EVALSHA, loading the script again after a Redis restart.
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)

    async def acquire(self, session_id: str, owner: str, ttl_ms: int) -> bool:
        done: Any = await self.client.set(lease_key(session_id), owner, nx=True, px=ttl_ms)
        return bool(done)

    async def renew(self, session_id: str, owner: str, ttl_ms: int) -> bool:
        done: Any = await self._renew(keys=[lease_key(session_id)], args=[owner, ttl_ms])
        return int(done) == 1

    async def release(self, session_id: str, owner: str) -> bool:
        done: Any = await self._release(keys=[lease_key(session_id)], args=[owner])
        return int(done) == 1

    async def owner(self, session_id: str) -> str | None:
        value: Any = await self.client.get(lease_key(session_id))
        return None if value is None else text(value)
