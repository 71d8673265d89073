"""The bridge to the physics engine (``pisa3d.physics``): how an unsteady hand moves a tile
(``hand``), who decides what a released tile does (``judges``: the process's shared engine, or a
record being replayed), and the noise-free windmill tower the physics tests and benchmarks build
(``windmill``). Engines are made by name when a release is first settled, so importing this
loads none. Imports only ``rules``."""
