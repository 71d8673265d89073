"""pisa3d: a physics-based 3D tower simulator and two tabletop games on one turn framework."""

__version__ = "0.8.1"
