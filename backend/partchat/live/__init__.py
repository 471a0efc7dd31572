"""What is live across servers, in Redis: events, stops and who runs a turn.

The in-process ``turns.Hub`` stays the single-process default. With Redis configured a
server keeps one :class:`RedisEventLog` (``RedisEventLog.from_url(url)``) and the turn
engine uses it like this:

- **Owning a turn.** Before a turn runs, ``await log.acquire_lease(sid, boot_id, ttl_ms)``
  (False: another server runs one); ``renew_lease`` on each heartbeat (False: the lease
  was lost, stop streaming); ``release_lease`` in the turn's ``finally``. ``lease_owner``
  tells who runs it; a lease that lapsed means the owner died (mark the turn interrupted).
- **Publishing.** Each event the Hub publishes goes to ``log.publish(sid, seq, frame)``
  too, with the same ``seq`` and already-encoded frame; at the turn's end
  ``log.expire_after_turn(sid)``. Both are plain calls that only queue (they never await
  Redis); ``log.stats`` counts what was written, dropped or refused.
- **Resuming anywhere.** A connection with ``lastSeq`` iterates
  ``log.replay_and_follow(sid, last_seq)``: ``(seq, frame)`` for seq > ``last_seq`` in
  order, exactly once, replayed then live; cancel the iteration to stop following. It is
  meant to run once per session per server, fanned out to local connections (each
  follower holds one Redis connection while it blocks). ``oldest_seq`` tells whether the
  stream still reaches back to ``last_seq``.
- **Stopping anywhere.** ``await log.send_stop(sid)`` reaches the lease's owner; each
  server runs ``log.stop_listener(boot_id, on_stop)`` (``await .start()`` once) and stops
  its turn of the session ``on_stop`` names. Pub/Sub per server: see ``control.py``.

Keys: ``partchat:s:{sid}`` (stream, entry id ``{seq}-0``), ``partchat:lease:{sid}``,
channel ``partchat:ctl:{owner}`` (``keys.py``).
"""

from partchat.live.control import StopListener
from partchat.live.publisher import PublishStats
from partchat.live.redis_log import REPLAY_TTL_S, LiveLogUnavailable, RedisEventLog

__all__ = ["REPLAY_TTL_S", "LiveLogUnavailable", "PublishStats", "RedisEventLog", "StopListener"]
