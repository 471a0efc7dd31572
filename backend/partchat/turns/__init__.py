"""Chat turns, owned by the session and not by a connection: the ``TurnEngine``
(``engine.py``), each session's ``Hub`` with its seqs, replay buffer and subscribers
(``hub.py``), loading sessions into hubs (``sessions.py``), running one turn from the
graph's stream to the stored answer (``run.py``), LangGraph chunks to protocol events
(``stream_adapter.py``), the ``TurnGate`` that admits turns and their steps
(``admission.py``), and a turn another server runs relayed from Redis (``relay.py``).

May import: ``agent``, ``ops``, ``toolbox``, ``store``, ``live``, ``nlu``, ``catalog``,
``protocol``, ``settings``; never ``transport`` (the endpoints call the engine, not the
other way round).
"""
