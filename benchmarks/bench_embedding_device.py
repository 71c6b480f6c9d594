"""What embedding page summaries costs on a device: the CPU or a GPU.

Builds the summaries of a folder of real HTML pages the way ``page_summaries`` does (title,
H1, meta description, main text by trafilatura: :func:`linkpipe.lib.content.summaries.
build_summary`), or reads them from a JSON-lines file written earlier (``--write-texts``: a
machine without the pipeline's extraction dependencies then needs only sentence-transformers),
and embeds them with linkpipe's own embedder on ``--device`` (``auto``, ``cpu``, ``cuda``),
``--repeat`` times. Prints the device, the batch size, the median wall seconds, summaries a
second and the process's CPU-seconds a summary; with ``--compare-cpu``, the smallest cosine
between a sample's vectors on the device and on the CPU.

    python benchmarks/bench_embedding_device.py --site /usr/share/gimp/2.0/help/en \
        --write-texts /tmp/summaries.jsonl --device cpu --limit 300
    python benchmarks/bench_embedding_device.py --texts /tmp/summaries.jsonl --device cuda
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from linkpipe.lib.vectors.embedding import DEFAULT_MODEL, SentenceTransformerEmbedder


def summaries_of_folder(folder: Path, limit: int | None) -> list[str]:
    """The summary of every ``.html`` page under ``folder`` (sorted paths; at most
    ``limit``), as ``page_summaries`` builds it."""
    from lxml import html as lxml_html

    from linkpipe.lib.content.extraction import extract_main_content
    from linkpipe.lib.content.summaries import build_summary

    texts = []
    for path in sorted(folder.rglob("*.html"))[:limit]:
        raw = path.read_text(encoding="utf-8", errors="replace")
        if not raw.strip():
            continue
        tree = lxml_html.fromstring(raw.encode())
        title = " ".join((tree.findtext(".//title") or "").split())
        h1 = " ".join(str(tree.xpath("string(//h1)")).split())
        meta = tree.xpath("string(//meta[@name='description']/@content)")
        content = extract_main_content(raw, url=path.as_uri())
        summary = build_summary(path.as_uri(), title.strip(), h1, str(meta), content)
        if summary.strip():
            texts.append(summary)
    return texts


def timed_embedding(
    embedder: SentenceTransformerEmbedder, texts: list[str], repeat: int
) -> tuple[list[float], list[float], np.ndarray]:
    """(wall seconds of each round, CPU seconds of each round, the last round's vectors),
    after one warm-up round on a few texts (the model's load and first kernels)."""
    embedder.embed(texts[: embedder.batch_size])
    walls, cpus = [], []
    vectors = np.zeros((0, 0), dtype=np.float32)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        vectors = embedder.embed(texts)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, vectors


def main() -> None:
    """Parse arguments, build or read the summaries, embed them and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, help="a folder of HTML pages")
    parser.add_argument("--texts", type=Path, help="summaries, one JSON string a line")
    parser.add_argument("--write-texts", type=Path, help="save the summaries built")
    parser.add_argument("--limit", type=int, default=None, help="pages at most")
    parser.add_argument("--copies", type=int, default=1, help="embed the texts this many times")
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--batch-size", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3, help="0: only build the summaries")
    parser.add_argument("--compare-cpu", type=int, default=0, help="texts compared with the CPU")
    args = parser.parse_args()
    if args.site:
        texts = summaries_of_folder(args.site, args.limit)
    elif args.texts:
        texts = [json.loads(line) for line in args.texts.read_text().splitlines() if line]
    else:
        parser.error("give --site or --texts")
    if args.write_texts:
        args.write_texts.write_text("".join(json.dumps(t) + "\n" for t in texts))
    if args.repeat == 0:
        return
    texts = texts[: args.limit] * args.copies
    embedder = SentenceTransformerEmbedder(args.model, args.batch_size, args.device)
    walls, cpus, vectors = timed_embedding(embedder, texts, args.repeat)
    wall = statistics.median(walls)
    words = statistics.median(len(t.split()) for t in texts)
    print(f"device {embedder.device}, batch {embedder.batch_size}, {len(texts)} summaries "
          f"(median {words:.0f} words), {args.repeat} rounds")  # fmt: skip
    print(f"wall s: median {wall:.3f} (rounds {', '.join(f'{w:.3f}' for w in walls)})")
    print(f"summaries a second: {len(texts) / wall:,.0f}")
    print(f"CPU ms a summary: {1000 * statistics.median(cpus) / len(texts):.3f}")
    print(f"wall ms a summary: {1000 * wall / len(texts):.3f}")
    if args.compare_cpu and embedder.device != "cpu":
        sample = texts[: args.compare_cpu]
        cpu = SentenceTransformerEmbedder(args.model, None, "cpu").embed(sample)
        cosines = np.sum(cpu * vectors[: len(sample)], axis=1)
        print(f"against the CPU, {len(sample)} summaries: smallest cosine {cosines.min():.6f}")


if __name__ == "__main__":
    main()
