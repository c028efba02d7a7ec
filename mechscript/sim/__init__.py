"""Batch resolution: a script's encounter fought many times (`mech sim`), and its statistics."""
