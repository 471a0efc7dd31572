"""What is live across servers, in Redis: each session's events and the stops.

The in-process ``turns.hub.Hub`` is the single-process default. With ``PARTCHAT_REDIS_URL``
a server keeps one :class:`RedisEventLog` (``RedisEventLog.from_url(url)``) and the turn
engine uses it so:

- **Publishing.** Each frame a hub publishes also goes to ``log.publish(sid, seq,
  frame)``, with the same ``seq``; at a turn's end ``log.expire_after_turn(sid)``. Both
  only queue (they never await Redis); ``log.stats`` counts what was written, dropped or
  refused.
- **Resuming anywhere.** ``log.read_after(sid, last_seq)`` is what the stream holds now;
  ``log.replay_and_follow(sid, last_seq)`` yields ``(seq, frame)`` for seq > ``last_seq``
  in order, exactly once, replayed then live (``partchat.turns.relay`` runs one per session and
  server, fanned out to that server's connections).
- **Stopping anywhere.** ``await log.send_stop(sid, owner)`` reaches the server running
  the turn (the store's turn ``owner``); each server runs ``log.stop_listener(boot_id,
  on_stop)`` for its whole life. Pub/Sub per server: see ``control.py``.

Who runs a turn is the store's business (the turn's ``owner`` and the ``workers``
heartbeats), not Redis's. Keys: ``keys.py``.

May import: ``nlu``, ``catalog``, ``protocol``, ``settings``; never ``store`` (a sibling)
or anything above.
"""

from partchat.live.control import StopListener
from partchat.live.publisher import PublishStats
from partchat.live.redis_log import REPLAY_TTL_S, LiveLogUnavailable, RedisEventLog

__all__ = ["REPLAY_TTL_S", "LiveLogUnavailable", "PublishStats", "RedisEventLog", "StopListener"]
