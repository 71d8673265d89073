"""The tower's unit of length: positions are metres inside, millimetres in options, records and text."""

from __future__ import annotations

MM_PER_M = 1000.0  # one copy of the factor; divide to read mm as m, multiply to write m as mm
