"""A shard job for the pool tests: fails at once for the key "bad", else takes a moment."""

from __future__ import annotations

import sys
import time


def job(asset_names: list[str], key: dict[str, str], db_path: str, model: str) -> None:
    """Raise for ``key["shard"] == "bad"``; sleep briefly for any other key."""
    if key["shard"] == "bad":
        raise RuntimeError("shard bad failed")
    time.sleep(0.2)


if __name__ == "__main__":
    from linkpipe.defs.shard_pool import run_parallel

    keys = [{"shard": "bad"}] + [{"shard": str(i)} for i in range(int(sys.argv[1]))]
    try:
        run_parallel(job, [], keys, "unused.duckdb", "unused", 2)
    except RuntimeError as exc:
        print(f"raised: {exc}")
