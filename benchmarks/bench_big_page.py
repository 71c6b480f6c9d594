"""What one very long page adds to each stage's peak memory: the bundled demo site crawled and
run end to end twice, without and with one extra page of ``--megabytes`` of HTML.

    pip install -e '.[bench]'                                  # wordfreq, psutil
    python benchmarks/bench_big_page.py --megabytes 4.9        # the crawler's cap is 5 MB

The long page is paragraphs of real English words (``wordfreq``) under headings, naming demo
pages now and then ("topic clusters", "content audit"), linked from the home page. Each variant
runs in a fresh process, every stage called directly in order (as ``bench_pipeline.py --mode
direct``); per stage: the process's exact peak RSS (VmHWM, reset at each stage) and its CPU.
Prints one row per stage: peak without, peak with, the difference, and both CPU figures.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
NAMES = ["topic clusters", "content audit", "internal links", "content pruning", "anchor text"]

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
from bench_meter import Meter
from bench_steps import run_direct
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.static_site import serve_site
from pathlib import Path

root, db = Path(sys.argv[1]), Path(sys.argv[2])
with serve_site(root) as site:
    register_crawl(db, "c1", site.base_url + "/", "crawler", "", {"max_pages": 500})
    meter = Meter()
    run_direct(db, "c1", sys.argv[4], meter)
print(json.dumps([s.as_dict() for s in meter.stages]))
"""


def long_page(megabytes: float) -> str:
    """An HTML page of about ``megabytes`` MB: headed sections of real-word sentences."""
    import numpy as np
    from wordfreq import top_n_list

    words = top_n_list("en", 20000)[200:]
    rng = np.random.default_rng(0)
    parts = ["<html><head><title>Everything we know | Brightleaf</title></head><body><main>"]
    size, i = 0, 0
    while size < megabytes * 1_000_000:
        if i % 40 == 0:
            parts.append(f"<h2>Part {i // 40 + 1}</h2>")
        chosen = rng.choice(len(words), 16)
        sentence = " ".join(words[j] for j in chosen).capitalize()
        if i % 25 == 0:
            sentence += f" with {NAMES[(i // 25) % len(NAMES)]}"
        parts.append(f"<p>{sentence}.</p>")
        size += len(parts[-1])
        i += 1
    parts.append("</main></body></html>")
    return "\n".join(parts)


def make_sites(work: Path, megabytes: float) -> dict[str, Path]:
    """The demo site as it is, and with the long page linked from its home page."""
    from linkpipe.cli.pipeline import DEMO_SITE

    plain, big = work / "plain", work / "big"
    for root in (plain, big):
        shutil.copytree(DEMO_SITE, root)
    (big / "everything.html").write_text(long_page(megabytes))
    home = big / "index.html"
    html = home.read_text()
    home.write_text(html.replace("</body>", '<a href="/everything.html">Everything</a></body>', 1))
    return {"without": plain, "with": big}


def run_variant(root: Path, db: Path, model: str) -> dict[str, dict[str, float]]:
    """Per stage of one fresh-process run: peak RSS (MiB) and CPU seconds."""
    argv = [sys.executable, "-c", CHILD, str(root), str(db), str(HERE), model]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1])
    stages = json.loads(done.stdout.strip().splitlines()[-1])
    return {s["stage"]: {"rss": s["rss_self_peak_mib"], "cpu": s["cpu_s"]} for s in stages}


def main() -> None:
    """Run both variants and print the table."""
    from linkpipe.cli.options import default_model

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--megabytes", type=float, default=4.9, help="HTML size of the page")
    parser.add_argument("--model", default=default_model())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        sites = make_sites(Path(tmp), args.megabytes)
        runs = {
            name: run_variant(root, Path(tmp) / f"{name}.duckdb", args.model)
            for name, root in sites.items()
        }
    print(
        f"| stage | peak without | peak with {args.megabytes} MB page | added | CPU-s without"
        " | CPU-s with |"
    )
    print("|---|---|---|---|---|---|")
    for stage, without in runs["without"].items():
        big = runs["with"][stage]
        print(
            f"| {stage} | {without['rss']:,.0f} MiB | {big['rss']:,.0f} MiB | "
            f"{big['rss'] - without['rss']:+,.0f} MiB | {without['cpu']:.1f} | {big['cpu']:.1f} |"
        )


if __name__ == "__main__":
    main()
