"""The dice engine: face sources, NdS with modifiers, roll-and-keep, exact distributions."""
