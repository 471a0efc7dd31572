"""The agent: the graph START -> extract -> llm <-> tools -> END (``graph.py``), its state
(``state.py``), the extract node (``extract.py``), the system prompt (``prompts.py``),
the chat models (``llm.py``, ``fast_openai.py``, the offline ``offline.py`` and
``offline_writer.py``) and the token path from model to socket (``streaming.py``).

May import: ``toolbox``, ``store``, ``live``, ``nlu``, ``catalog``, ``protocol``,
``settings``; never ``ops`` (a sibling), ``turns`` or ``transport``.
"""
