"""The tower's rules as plain data: tiles and their edge patterns, slots and their poses in the
layout, the structure of placements and the rules that allow one, move notation and action ids,
the options and the set-up they derive. Nothing here simulates or judges balance; every other
sub-package of the tower imports from here, and this imports none of them."""
