"""The checker's static knowledge of scripts: types (types.py) and their inference (infer.py); and
`mech check` (check.py): the script run up to its first die (setup.py), and what the types show
(problems.py)."""
