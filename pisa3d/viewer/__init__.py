"""Watching and playing the tower in 3D: the PyBullet GUI viewer (gui.py), its pure input
mapping (input.py), cameras (camera.py) and offscreen frames for videos (render.py)."""
