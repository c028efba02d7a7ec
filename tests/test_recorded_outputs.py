"""Every example's `mech run --seed S` and `mech sim -n 300 --seed S --json` are byte-identical to
the record in tests/recorded_outputs.json (written by `python bench/record_outputs.py --write`): a
change to the interpreter keeps every result, every die in the same order and every line of
narration. A change meant to change results writes the record again and says why."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import record_outputs  # bench/ is not a package: its folder is on sys.path above

RECORDED = json.loads(record_outputs.RECORD.read_text(encoding="utf-8"))


def test_the_record_holds_every_example_command():
    assert sorted(RECORDED) == sorted(" ".join(argv) for argv in record_outputs.commands())


@pytest.mark.parametrize("argv", record_outputs.commands(), ids=" ".join)
def test_output_is_byte_identical_to_the_record(argv, monkeypatch):
    monkeypatch.chdir(ROOT)
    command = " ".join(argv)
    found = record_outputs.differences({command: RECORDED[command]}, {command: record_outputs.mech(*argv)})
    assert not found, found[0]
