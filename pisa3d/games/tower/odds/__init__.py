"""Fall odds: the chance that a placement topples the tower (``fall_odds``: the statics judge over
sampled hands, through response curves fitted to the physics referee and stored in
assets/tower/fall_odds.json). Imports ``play``, ``statics`` and ``rules``."""
