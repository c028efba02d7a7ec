"""The runs of a batch, a sweep or a comparison sent to a Dask cluster (`--executor dask --scheduler
tcp://HOST:PORT`), through its `concurrent.futures` executor: the chunks of runs go to the workers
as they go to local worker processes, and come back to be added up in the order of their runs, so
the numbers are the ones a local batch gives for the same seed. A worker compiles the script from
its text (and a variant from its values) once per process; it reads the modules the script uses
from the same folders as here, so modules of one's own must be at the same path on every worker (a
shared folder); the standard modules come with mechscript, which every worker must have installed.
Needs the extra `distributed`: pip install 'mechscript[distributed]'.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager

from ..errors import MechError

CONNECT_SECONDS = 10  # how long to wait for the scheduler before saying it cannot be reached


@contextmanager
def dask_executor(address: str):
    """(the cluster's executor, its worker threads) while connected to the scheduler at `address`."""
    from distributed import Client
    # Dask's own log lines (a connection closed while the client leaves) are not the user's business:
    # what goes wrong with the runs comes back as an error of the batch
    for name in ["distributed", "tornado", *logging.root.manager.loggerDict]:
        if name.split(".")[0] in ("distributed", "tornado"):
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    try:
        client = Client(address, timeout=CONNECT_SECONDS)
    except (OSError, TimeoutError, ValueError) as error:
        raise MechError(f"cannot reach the Dask scheduler at {address} ({error})",
                        hint="start one with `dask scheduler` and workers with `dask worker tcp://HOST:8786`; "
                             "--scheduler takes its address").located("", "--scheduler") from None
    try:
        threads = sum(client.nthreads().values())
        if threads == 0:
            raise MechError(f"the Dask scheduler at {address} has no workers",
                            hint="start some with `dask worker " + address + "`").located("", "--scheduler")
        executor = client.get_executor()
        try:
            yield executor, threads
        finally:
            executor.shutdown(wait=True)  # the chunks a batch stopped early (--precision) no longer pending
    finally:
        client.close()
