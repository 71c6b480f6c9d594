"""What a fresh process pays to embed a few page summaries: the default model run by
``lib/vectors/bert.py`` (torch alone) against the same model through sentence-transformers.

A nightly refresh embeds only its edited pages (a hundred of a 10k site's at 1 %), in a new
process: the import and the load are most of it. Each round runs each backend in its own
fresh process (alternating), which reports the CPU of its imports and model load, then of
embedding the texts; the parent prints the medians, and the largest difference between the
two backends' vectors.

    python benchmarks/bench_embedding_device.py --site /usr/share/gimp/2.0/help/en \
        --write-texts /tmp/summaries.jsonl --device cpu --limit 300
    python benchmarks/bench_embedder_start.py --texts /tmp/summaries.jsonl --limit 100 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

CHILD = """
import json, resource, sys
import numpy as np
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
start = cpu()
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL, SentenceTransformerEmbedder
embedder = SentenceTransformerEmbedder(DEFAULT_MODEL, device="cpu", lean=sys.argv[1] == "lean")
dim = embedder.dim
loaded = cpu()
texts = [json.loads(line) for line in open(sys.argv[2], encoding="utf-8")]
vectors = embedder.embed(texts[: int(sys.argv[3])])
done = cpu()
np.save(sys.argv[4], vectors)
print(json.dumps({"backend": embedder.backend, "load": loaded - start, "embed": done - loaded}))
"""


def run_child(backend: str, texts: Path, limit: int, out: Path) -> dict[str, float]:
    """One fresh process embedding the first ``limit`` texts with ``backend``."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, backend, str(texts), str(limit), str(out)],
        capture_output=True, text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"},
    )  # fmt: skip
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--texts", type=Path, required=True,
        help="JSON lines, a string each (bench_embedding_device.py --write-texts)",
    )  # fmt: skip
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"lean": [], "sentence-transformers": []}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for backend in runs:
                out = Path(folder) / f"{backend}.npy"
                runs[backend].append(run_child(backend, args.texts, args.limit, out))
        lean, full = (np.load(Path(folder) / f"{b}.npy") for b in runs)
        diff = np.abs(lean - full).max()
    print(f"{args.limit} texts, {args.rounds} rounds, alternating, each a fresh process")
    print("| backend | imports and load, CPU s | embedding, CPU s | total |")
    print("|---|---|---|---|")
    for backend, figures in runs.items():
        load = statistics.median(f["load"] for f in figures)
        embed = statistics.median(f["embed"] for f in figures)
        total = statistics.median(f["load"] + f["embed"] for f in figures)
        print(f"| {backend} | {load:.2f} | {embed:.2f} | {total:.2f} |")
    print(f"largest difference between the backends' vectors: {diff:.2e}")


if __name__ == "__main__":
    main()
