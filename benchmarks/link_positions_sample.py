"""Share of links by position on a real site, and a random sample to check by hand.

    python benchmarks/link_positions_sample.py /usr/share/gimp/2.0/help/en --sample 50 --seed 0

Crawls SITE_ROOT served on 127.0.0.1 (crawl_export stage into a temporary DuckDB file), prints
the share of internal links per position (content / navigation / header / footer / aside) and
a seeded random sample of links, each with the chain of HTML elements around it so that a
person can judge whether the position is right.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import zlib
from pathlib import Path

import duckdb
from selectolax.lexbor import LexborHTMLParser

from linkpipe.lib.stages.crawl_export import materialize_crawl_export, register_crawl
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.urls import normalize_url


def ancestry(html: str, source: str, target: str, anchor: str) -> str:
    """Element chain (tag#id.class) from <body> to the first <a> matching the link."""
    tree = LexborHTMLParser(html)
    for a in tree.css("a[href]"):
        text = " ".join(a.text(separator=" ").split())
        try:
            resolved = normalize_url(a.attributes.get("href") or "", source)
        except ValueError:
            continue
        if resolved == target and (text == anchor or not anchor):
            chain, node = [], a.parent
            while node is not None and node.tag not in ("body", "html", "-undef"):
                ident = node.attributes.get("id")
                cls = (node.attributes.get("class") or "").split()
                chain.append(
                    node.tag + (f"#{ident}" if ident else "") + "".join(f".{c}" for c in cls[:2])
                )
                node = node.parent
            return " < ".join(chain[:6])
    return "(not found)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_root")
    parser.add_argument("--sample", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-pages", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, serve_site(Path(args.site_root)) as site:
        db = Path(tmp) / "positions.duckdb"
        register_crawl(db, "c", site.base_url + "/", "crawler", "", {"max_pages": args.max_pages})
        materialize_crawl_export(db, "c", 4)
        con = duckdb.connect(str(db), read_only=True)
        shares = con.execute("""SELECT position, count(*), round(100.0 * count(*) / sum(count(*)) OVER (), 1)
                                FROM crawl_links WHERE internal GROUP BY 1 ORDER BY 2 DESC""").fetchall()
        print("position  links  share%")
        for row in shares:
            print(f"{row[0]:<10}{row[1]:>6}  {row[2]}")
        links = con.execute("""SELECT l.source_url, l.target_url, l.anchor_text, l.position, p.html_z
                               FROM crawl_links l JOIN crawl_pages_html p ON p.crawl_id = l.crawl_id
                               AND p.url = l.source_url WHERE l.internal ORDER BY ALL""").fetchall()
        con.close()
    rng = random.Random(args.seed)
    print(
        f"\nsample of {args.sample} (seed {args.seed}): position | anchor | source | element chain"
    )
    for i, (src, tgt, anchor, position, html_z) in enumerate(
        rng.sample(links, min(args.sample, len(links))), 1
    ):
        html = zlib.decompress(html_z).decode()
        chain = ancestry(html, src, tgt, anchor)
        print(f"{i:>2}. {position:<10} | {anchor[:40]!r} | {src.split('/', 3)[-1][:40]} | {chain}")


if __name__ == "__main__":
    main()
