"""`--executor dask --scheduler ADDRESS` (issue 20, item 6): the runs of a batch, a sweep, a
comparison and a balance search fought by the workers of a Dask cluster give the JSON a local batch
gives for the same seed. The cluster is a `distributed.LocalCluster` this test starts (two workers
of one thread each, in this process, listening on TCP), and `mech` runs as the real command."""

from __future__ import annotations

import json

import pytest

from test_sim import AMBUSH, mech

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                                       host="127.0.0.1", dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def same_json(*args, scheduler: str) -> dict:
    local = mech(*args, "--jobs", "1", "--json")
    remote = mech(*args, "--executor", "dask", "--scheduler", scheduler, "--json")
    assert (local.returncode, local.stderr) == (0, "")
    assert (remote.returncode, remote.stderr) == (0, "")
    assert remote.stdout == local.stdout   # byte for byte
    return json.loads(remote.stdout)


def test_a_batch_on_the_cluster_is_the_local_batch(scheduler):
    data = same_json("sim", AMBUSH, "-n", "500", "--seed", "12", scheduler=scheduler)
    assert data["runs"] == 500 and data["seed"] == 12


def test_a_sweep_a_comparison_and_a_balance_on_the_cluster(scheduler, tmp_path):
    same_json("sim", AMBUSH, "-n", "150", "--seed", "2", "--vary", "Punch.skill=4,8", "--precision", "0.1",
              scheduler=scheduler)
    house = tmp_path / "ties.mech"
    house.write_text('use pbem\npbem.tie = "attacker"\n', encoding="utf-8")
    compared = same_json("compare", AMBUSH, "--rule", house, "-n", "200", "--seed", "2", scheduler=scheduler)
    assert compared["variants"][0]["changed_winners"] > 0
    same_json("sim", AMBUSH, "--balance", "Punch.endurance", "-n", "200", "--seed", "2", scheduler=scheduler)


def test_the_api_takes_the_cluster_s_executor(scheduler):
    import mechscript
    with distributed.Client(scheduler) as client:
        remote = mechscript.simulate(str(AMBUSH), 300, seed=5, executor=client.get_executor(), jobs=2)
    assert remote == mechscript.simulate(str(AMBUSH), 300, seed=5, jobs=1)


def test_mistakes(tmp_path):
    no_address = mech("sim", AMBUSH, "-n", "10", "--executor", "dask")
    assert no_address.returncode == 2
    assert no_address.stderr == ("mech sim: --executor dask needs --scheduler tcp://HOST:PORT (the address "
                                 "`dask scheduler` prints)\n")
    stray = mech("compare", AMBUSH, AMBUSH, "-n", "10", "--scheduler", "tcp://127.0.0.1:1")
    assert (stray.returncode, stray.stderr) == (2, "mech compare: --scheduler goes with --executor dask\n")
    nobody = mech("sim", AMBUSH, "-n", "10", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9")
    assert nobody.returncode == 1 and nobody.stdout == ""
    lines = nobody.stderr.splitlines()
    assert lines[0].startswith("--scheduler: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert lines[1].startswith("  hint: start one with `dask scheduler`")
