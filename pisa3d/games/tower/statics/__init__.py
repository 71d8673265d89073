"""Geometry of poses and statics, pure numpy: the pose a hand means a tile to take on the tower
as it stands (``placement``), and the statics judge (``statics``, on the hull geometry of
``hulls``), whose margins the state records, the bots plan with and the fall odds sample. Imports
only ``rules``."""
