"""The checker's static knowledge of scripts: types (types.py) and their inference (infer.py)."""
