"""A chunk of a batch keeps its runs by column (stats.Runs), and the batch adds them up a column at
a time (Tally.add_runs, Replays.add_runs): the same numbers, the same key order and the same
replays as adding each run in turn (Tally.add, Replays.add), however the runs are cut into chunks
and the chunks into parts, with characters whose reported states change from run to run, floats
whose sum passes a float's range, ints too big for a float, and a side named "draw"."""

from __future__ import annotations

import json
import pickle

from hypothesis import given, strategies as st

from mechscript.sim.batch import Replays
from mechscript.sim.stats import Runs, Tally

NAMES = ["Punch", "Ransack", "Kup"]
KEYS = ["hp", "rank", "energon"]
# what a run reports (keep.numbers_of, prepared.outcome): ints, some past a float's range, and floats
values = st.one_of(st.integers(-5, 30), st.integers(-2 ** 80, 2 ** 80), st.just(2 ** 2000),
                   st.sampled_from([0.5, 2.5, 1.7e308, -1.7e308]))
characters = st.dictionaries(st.sampled_from(NAMES),
                             st.tuples(st.booleans(), st.dictionaries(st.sampled_from(KEYS), values, max_size=3)),
                             max_size=3)
sides = st.sampled_from([["autobots", "decepticons"], ["autobots", "draw"]])


@st.composite
def batches(draw):
    these = draw(sides)
    # one shape most of the time, as a real batch: a few runs of other shapes among them
    usual = draw(characters)
    outcomes = draw(st.lists(st.tuples(st.sampled_from([*these, None]), st.integers(0, 12),
                                       st.one_of(st.just(usual), st.just(usual), characters)),
                             min_size=1, max_size=60))
    cuts = sorted(draw(st.sets(st.integers(1, len(outcomes) - 1), max_size=6))) if len(outcomes) > 1 else []
    return these, outcomes, cuts


@given(batches(), st.integers(0, 3))
def test_runs_added_by_column_give_what_each_run_added_in_turn_gives(batch, parts):
    these, outcomes, cuts = batch
    one_by_one, replays = Tally(these), Replays(7, these)
    for index, outcome in enumerate(outcomes):
        one_by_one.add(outcome)
        replays.add(index, outcome)
    by_column, column_replays = Tally(these), Replays(7, these)
    for start, stop in zip([0, *cuts], [*cuts, len(outcomes)]):
        runs = Runs()
        for outcome in outcomes[start:stop]:
            runs.append(outcome)
        runs = pickle.loads(pickle.dumps(runs))   # as a worker sends it
        assert len(runs) == stop - start
        # each chunk added in `parts` + 1 parts, as a batch with a precision adds it
        edges = [round(len(runs) * k / (parts + 1)) for k in range(parts + 2)]
        for a, b in zip(edges, edges[1:]):
            by_column.add_runs(runs, a, b)
            column_replays.add_runs(start, runs, a, b)
    assert json.dumps(by_column.to_json()) == json.dumps(one_by_one.to_json())
    assert by_column.order == one_by_one.order
    assert [list(sums) for sums in by_column.sums.values()] == [list(sums) for sums in one_by_one.sums.values()]
    assert column_replays.to_json() == replays.to_json()
