"""Ways to use the pisa3d games from learning libraries (the ``[rl]`` extra): ``pettingzoo``
(AEC environments) and ``openspiel`` (python games registered with pyspiel)."""
