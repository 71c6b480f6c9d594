"""What a Dagster run costs linkpipe beside its assets: a trivial asset that prints a line,
materialized ``--runs`` times in linkpipe's Dagster instance (``runner.instance_for``, its
``dagster.yaml``) in a fresh folder, after one run that is not counted (imports, the
instance's databases). Prints the CPU of this process and of the processes a run starts
(Dagster's default capture of stdout and stderr starts four), medians of ``--rounds``.

    python benchmarks/bench_run_overhead.py --runs 10 --rounds 3

Run it with each code on ``PYTHONPATH`` for an A/B (a refresh is eleven runs).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
from pathlib import Path

import dagster as dg
from bench_meter import rusage_cpu

from linkpipe.defs.runner import instance_for


@dg.asset
def talker() -> None:
    """Prints a line, as a step that logs does."""
    print("a line of output", flush=True)


def one_round(runs: int) -> tuple[float, float, int]:
    """(own CPU a run, children's CPU a run, processes started a run) over ``runs`` runs."""
    started: list[object] = []
    popen = subprocess.Popen.__init__

    def counted(self: subprocess.Popen[bytes], args: object, *rest: object, **kw: object) -> None:
        started.append(args)
        popen(self, args, *rest, **kw)  # type: ignore[arg-type]

    with tempfile.TemporaryDirectory() as folder:
        instance = instance_for(Path(folder) / "bench.duckdb")
        dg.materialize([talker], instance=instance)  # not counted
        started.clear()
        before = rusage_cpu()
        subprocess.Popen.__init__ = counted  # type: ignore[assignment, method-assign]
        try:
            for _ in range(runs):
                dg.materialize([talker], instance=instance)
        finally:
            subprocess.Popen.__init__ = popen  # type: ignore[method-assign]
        after = rusage_cpu()
    return (after[0] - before[0]) / runs, (after[1] - before[1]) / runs, len(started) // runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = [one_round(args.runs) for _ in range(args.rounds)]
    own = statistics.median(r[0] for r in rounds)
    kids = statistics.median(r[1] for r in rounds)
    print(f"own CPU a run {own:.3f} s, its processes' {kids:.3f} s, total {own + kids:.3f} s;")
    each = [(round(r[0], 3), round(r[1], 3)) for r in rounds]
    print(f"processes started a run: {rounds[0][2]}; (own, processes') each round: {each}")


if __name__ == "__main__":
    main()
