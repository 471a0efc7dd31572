"""The wire protocol, and the shapes every layer shares: typed frames, client-frame
parsing and event encoding (``frames.py``), the frame and event TypedDicts generated from
``schemas/protocol.schema.json`` (``types.py``; ``python -m
partchat.schemas.gen_protocol_py`` writes it, never edit it by hand), ``FinishReason`` and
the session ``Context`` with its converters (``shapes.py``), and JSON Schemas compiled
into plain-Python checks (``fast_checks.py``), which the toolbox uses too.

May import: ``settings`` only; every other layer imports it.
"""
