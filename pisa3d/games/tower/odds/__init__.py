"""Fall odds: the chance that a placement topples the tower (``fall_odds``: the statics judge over
sampled hands, through response curves fitted to the physics referee), the seeded games whose
referee verdicts the curves are fitted on (``collect``), and the fit that writes
assets/tower/fall_odds.json from them (``fit``; scipy, loaded only there). benchmarks/fall_odds.py
measures how well the curves are calibrated. Imports ``play``, ``statics`` and ``rules``."""
