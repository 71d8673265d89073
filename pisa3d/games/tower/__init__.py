"""The tower game ("GEMJI Pisa", RULES.md section 1), by job. ``game.py`` holds ``TowerGame``, the
object the registry loads (``pisa3d.games``); everything else lives in one sub-package per job:

- ``rules/``: what the game is, as plain data: the tile set (``tiles``), the slot layout and edge
  names (``geometry``), the placement rules (``structure``, ``rule_reach``), move notation
  (``moves``), options and what they derive (``options``, ``setup``), the unit of length (``units``).
- ``statics/``: poses and balance without simulation: where a hand means to put a tile
  (``placement``), and the statics judge (``statics`` on the hull geometry of ``hulls``).
- ``referee/``: the bridge to the physics engine: the hand's noise (``hand``), who settles a
  release (``judges``: the engine, or a record), the windmill reference tower (``windmill``).
- ``play/``: a game in progress: ``state`` (``TowerState``), what each player may know
  (``views``), the observation tensor (``observation``), a state rebuilt from a view
  (``sampling``), where a refused tile fits, said to a person (``refusals``).
- ``odds/``: the chance that a placement topples the tower (``fall_odds``, the statics judge over
  sampled hands), the referee games its curves are fitted on (``collect``) and the fit that writes
  assets/tower/fall_odds.json (``fit``).
- ``bots/``: the tower's agents (``agents``), their statics planner (``planning``) and parameter
  ranges (``params``).
- ``presentation/``: the tower shown to people: the presenter and narrator (``presenter``,
  ``narration``), hints (``hints``), records made ready to watch (``replay``), the box a view
  frames (``framing``), meshes (``meshes``, trimesh) and the layout figure (``layout_drawing``).

Imports point one way: ``rules`` imports no other sub-package; ``statics`` and ``referee`` import
``rules``; ``play`` imports those three; ``odds`` imports ``play``, ``statics`` and ``rules``;
``bots`` adds ``odds``; ``presentation`` adds ``bots``; ``game.py`` imports ``rules``,
``referee``, ``play`` and ``bots`` (never ``presentation``: the core loads the presenter and the
framing by name, ``GameParts``). No ``__init__`` imports anything, and no module here imports
PyBullet or MuJoCo when it loads (``referee.judges`` asks the physics layer for its engine when
a release is first settled), so the rules, the views and the framing load without one.
"""
