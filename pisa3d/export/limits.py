"""The ranges of a video's settings, declared once: the CLI shows and checks them as the command
line is read, and :meth:`pisa3d.export.video.VideoSettings.check` checks them for library calls.
Kept apart from video.py so that reading them imports no renderer."""

from __future__ import annotations

MAX_SIZE = (3840, 2160)  # width, height in pixels: 4K
MAX_FPS = 120
SPEED_RANGE = (0.01, 100.0)  # simulated seconds per video second: a hundredfold slow motion to fast
MAX_HOLD = 10.0  # seconds of video on each settled move
PITCH_LIMIT = 89.0  # degrees: at 90 the camera's up vector is undefined
MIN_DISTANCE_M = 0.01
MAX_DISTANCE_M = 100.0  # a camera this far sees a tower of metres as a dot
MAX_FRAMES = 200_000  # about 1 h 50 min at 30 fps: a longer film is a mistake in --speed or --fps
