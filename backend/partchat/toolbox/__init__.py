"""The six tools the model calls: their contracts in ``tools/*.json`` loaded and checked
(``contracts.py``), arguments normalised and validated (``validation.py``), error results
the model can act on (``errors.py``), validated and time-limited dispatch that never
raises (``dispatch.py``: ``Toolbox``), the implementations over the catalog
(``impls.py``), the part cards they return (``cards.py``), and a turn's tool calls as the
store keeps them (``records.py``).

May import: ``store``, ``live``, ``nlu``, ``catalog``, ``protocol`` (its fast checks),
``settings``; never ``agent``, ``turns``, ``ops`` or ``transport``.
"""
