"""The tower's bots (``agents``: random, careful, safest, cautious, spoiler, builder), the placement
scores of the statics judge they plan with (``planning``), and the allowed ranges of their
numeric parameters (``params``). Imports ``odds``, ``play``, ``statics`` and ``rules``."""
