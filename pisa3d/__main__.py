"""``python -m pisa3d`` runs the command line, like the ``pisa3d`` script."""

from .cli import main

main()
