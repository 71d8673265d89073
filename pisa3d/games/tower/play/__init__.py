"""A tower game in progress: ``TowerState`` (``state``: stacks, placements, poses and the rules that
advance them), what a player may know (``views``) and its tensor (``observation``), a full state
rebuilt from one player's view (``sampling``), and where a refused tile fits, said to a person
(``refusals``). Imports ``rules``, ``statics`` and ``referee``."""
