"""Peak memory of placing anchors in one long page: in parts (the product) or whole (the
placement before parts existed), each in a fresh process with the default model.

    python benchmarks/bench_long_page.py --megabytes 1 5

Prints, per page size and mode, the page's words, the peak RSS of the process above its RSS
after loading the model and parser, and the CPU seconds. The page is sentences of real words
(``wordfreq``'s English list, from the ``bench`` extra) naming the target now and then.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

CHILD = r"""
import resource, sys, time
import numpy as np
from wordfreq import top_n_list
from linkpipe.lib.links import candidates as C
from linkpipe.lib.links.anchors import SourceText
from linkpipe.lib.links.semantic_anchors import encode_sources
from linkpipe.lib.text.phrases import default_judge
from linkpipe.lib.vectors.ann import build_index
from linkpipe.lib.vectors.embedding import DEFAULT_MODEL, make_embedder

mode, megabytes = sys.argv[1], float(sys.argv[2])
words = top_n_list("en", 20000)[200:]
rng = np.random.default_rng(0)
parts, sentences, offset, i = [], [], 0, 0
while offset < megabytes * 1_000_000:
    chosen = rng.choice(len(words), 14)
    text = " ".join(words[j] for j in chosen).capitalize() + (
        " with layer masks." if i % 50 == 0 else ".")
    sentences.append((i // 4, offset, offset + len(text), "paragraph"))
    parts.append(text)
    offset += len(text) + 1
    i += 1
text = " ".join(parts)
embedder = make_embedder(DEFAULT_MODEL)
judge = default_judge()
judge.parse("Warm up the parser.")
cache = {}  # the product's encoder caches word vectors by text (embedding_cache)
def encode(items):
    todo = [w for w in dict.fromkeys(items) if w not in cache]
    if todo:
        cache.update(zip(todo, np.asarray(embedder.embed(todo), np.float32)))
    return np.stack([cache[w] for w in items])
encode(["warm up"])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
start = time.process_time()
src = SourceText(text, sentences, [])
pages = [C.SitePage("/long", "Long", "", "", ""), C.SitePage("/masks", "Layer masks", "", "", "")]
page_vectors = np.asarray(encode(["photo editing steps", "layer masks"]), np.float32)
site = C.SiteContext(pages, page_vectors, {}, {}, {})
found = C.retrieve(site, ["/long"], {"/long": src}, build_index(site.vectors, ["/long", "/masks"]),
                   C.CandidateLimits(k=1))
if mode == "whole":  # the placement before parts: every window of the page at once
    C.is_long = lambda _src: False
    vectors = encode_sources({"/long": src}, encode)
    rows = C.candidate_rows(site, found, {"/long": src}, vectors, None)
else:
    rows = C.candidate_rows(site, found, {"/long": src}, None, None, encode)
cpu = time.process_time() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
best = rows[0].best_anchor
print(f"{megabytes:4.1f} MB  {mode:5s}  {len(src.tokens):>9,} words  peak +{peak - base:7,.0f} MiB"
      f"  cpu {cpu:6.1f} s  anchor {best.anchor_text if best else None!r}")
"""


def main() -> None:
    """Run each size in parts, and whole for sizes up to --whole-up-to megabytes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=float, nargs="+", default=[1.0, 5.0])
    parser.add_argument("--whole-up-to", type=float, default=1.0, help="MB (whole is costly)")
    args = parser.parse_args()
    for megabytes in args.megabytes:
        modes = ["parts", "whole"] if megabytes <= args.whole_up_to else ["parts"]
        for mode in modes:
            argv = [sys.executable, "-c", CHILD, mode, str(megabytes)]
            out = subprocess.run(argv, capture_output=True, text=True)
            print(out.stdout.strip() or out.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
