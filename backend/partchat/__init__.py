"""partchat: an embeddable support chat agent for refrigerator and dishwasher parts.

Its packages are layers; a module imports only its own package and the layers below
(docs/architecture.md, "Package map"; the import contracts in pyproject.toml). Top down:
``cli``; ``server``, ``terminal``; ``transport``; ``turns``; ``agent``, ``ops``;
``toolbox``; ``store``, ``live``, ``nlu``; ``catalog``; ``protocol``; ``settings``.
"""

__version__ = "0.1.0"
