"""Running the server process: which process runs which turn and which are alive
(``workers.py``), when Python's full garbage collections run (``collector.py``), the
Prometheus metrics (``metrics.py``), and a replaced ``catalog.db`` served without a
restart (``catalog_watch.py``).

May import: ``toolbox``, ``store``, ``live``, ``nlu``, ``catalog``, ``protocol``,
``settings``; never ``agent`` (a sibling layer), ``turns`` or ``transport``.
"""
