"""An incremental crawl reuses anchor placements of unchanged pairs and gives exactly the
candidate rows of a full recomputation."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from linkpipe.defs.runner import run_graph
from linkpipe.lib.hashing import DEFAULT_SHARDS
from linkpipe.lib.stages.candidate_pairs import materialize_candidate_pairs
from linkpipe.lib.stages.crawl_export import register_crawl
from linkpipe.lib.stages.link_opportunities import materialize_link_opportunities
from linkpipe.lib.static_site import serve_site
from linkpipe.lib.storage import fetch_frame
from linkpipe.lib.text.key_pages import stopword_stems
from linkpipe.lib.text.lexical import TOKEN_RE, stem, tokens_with_offsets
from linkpipe.lib.text.mentions import Mention, MentionIndex
from linkpipe_tests.graph import placements_agree, run_demo_crawls

DEMO_SITE = Path(__file__).resolve().parents[3] / "linkpipe" / "demo_site"
EDIT = "<p>Editors revised this paragraph during the autumn archive audit. "


def _edit_pages(root: Path, count: int) -> list[Path]:
    """Prepend a sentence to the first paragraph of ``count`` article pages."""
    pages = [p for p in sorted(root.glob("*/*/index.html")) if "<p>" in p.read_text()][:count]
    for page in pages:
        page.write_text(page.read_text().replace("<p>", EDIT, 1))
    return pages


def _crawl(db: Path, base_url: str, crawl_id: str, model: str) -> None:
    """Register a crawl of the served site (at most 80 pages) and run the graph for it."""
    register_crawl(db, crawl_id, base_url + "/", "crawler", "", {"max_pages": 80})
    run_graph(db, crawl_id, model, workers=1)


def _rows(db: Path, crawl_id: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(
            "SELECT * EXCLUDE (crawl_id) FROM candidate_pairs WHERE crawl_id = ? "
            "ORDER BY shard, source_url, target_url",
            [crawl_id],
        ).fetchall()
    finally:
        con.close()


def _opportunities(db: Path, crawl_id: str) -> list[tuple]:
    return _all(
        db,
        "SELECT * EXCLUDE (crawl_id) FROM link_opportunities WHERE crawl_id = ? ORDER BY ALL",
        crawl_id,
    )


def _kept_placements(db: Path, crawl_id: str) -> dict[str, tuple]:
    rows = _all(db, "SELECT * EXCLUDE (crawl_id) FROM kept_placements WHERE crawl_id = ?", crawl_id)
    return {row[0]: row for row in rows}


def _all(db: Path, sql: str, *params: object) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchall()
    finally:
        con.close()


def _keys(db: Path, crawl_id: str) -> set[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            """SELECT anchor_key FROM candidate_pairs
               WHERE crawl_id = ? AND NOT already_linked_content""",
            [crawl_id],
        ).fetchall()
    finally:
        con.close()
    return {r[0] for r in rows}


def _one(db: Path, sql: str, *params: object) -> tuple:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, list(params)).fetchone()
    finally:
        con.close()


def _copied_pairs(db: Path, crawl_id: str, previous: str, column: str = "pair_digest") -> int:
    """Candidate pairs (labelled rows aside) whose pair digest (``column``) is one of
    ``previous``'s: the rows copied, with their source or alone (``name_key``: the pairs
    whose names-only placements ``previous`` made)."""
    return _one(
        db,
        f"""SELECT count(*) FROM candidate_pairs p
            WHERE p.crawl_id = ? AND NOT p.already_linked_content
              AND p.{column} IN (SELECT {column} FROM candidate_pairs WHERE crawl_id = ?)""",
        crawl_id,
        previous,
    )[0]


def test_incremental_candidates_equal_a_full_recomputation(tmp_path, fake_model):
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "r.duckdb"
    with serve_site(site_root) as site:
        _crawl(db, site.base_url, "c1", fake_model)
        edited = _edit_pages(site_root, 1)
        assert len(edited) == 1
        _crawl(db, site.base_url, "c2", fake_model)
    incremental = _rows(db, "c2")
    keys_before, keys_after = _keys(db, "c1"), _keys(db, "c2")
    assert None not in keys_after  # every candidate has an anchor key; labelled rows none
    shared = keys_after & keys_before
    assert len(shared) < len(keys_after)  # the edited pages' pairs are placed again ...
    # ... and most others are not (1,221 of 1,435 keys kept when this was written)
    assert len(shared) >= 0.8 * len(keys_after)
    # one edited page of ~60: c2 keeps the TF-IDF statistics fitted on c1
    assert _one(db, "SELECT fitted_in, fit_pages FROM site_models WHERE crawl_id = 'c2'") == (
        "c1",
        _one(db, "SELECT n_pages FROM site_models WHERE crawl_id = 'c1'")[0],
    )

    for shard in range(DEFAULT_SHARDS):
        result = materialize_candidate_pairs(db, "c2", shard, fake_model, reuse=False)
        assert result.meta["anchors_reused"] == 0 and result.meta["sources_copied"] == 0
    assert _rows(db, "c2") == incremental  # recomputed from scratch: the very same rows

    reused = copied = quiet = pairs = by_pair = hits_kept = lists_kept = 0
    for shard in range(DEFAULT_SHARDS):
        result = materialize_candidate_pairs(db, "c2", shard, fake_model)
        assert result.meta["reused_from"] == "c1"
        assert result.meta["copied_from"] == ""  # pages changed: no shard is copied whole
        hits_kept += result.meta["sources_hits_kept"]
        lists_kept += result.meta["sources_lists_kept"]
        reused += result.meta["anchors_reused"]
        copied += result.meta["sources_copied"]
        quiet += result.meta["sources_quiet"]
        pairs += result.meta["pairs_copied"]
        by_pair += result.meta["sources_gated_by_pair"]
    sources = _one(
        db, "SELECT count(DISTINCT source_url) FROM candidate_pairs WHERE crawl_id = 'c2'"
    )[0]
    print(f"sources copied {copied} of {sources} ({quiet} without retrieval, {by_pair} by pair)")
    print(f"pairs of the others copied {pairs}; anchors reused {reused} of {len(shared)}")
    assert 0 < copied < sources  # the sources near an edited page are computed, the rest copied
    assert 0 < quiet <= copied  # most copied sources are not even retrieved
    # the sources no edited vector or TF-IDF row reaches take c1's embedding hits and TF-IDF
    # neighbours instead of searching
    print(f"embedding hits kept {hits_kept}, TF-IDF lists kept {lists_kept} of {sources}")
    assert 0 < hits_kept < sources and 0 < lists_kept < sources
    # sources whose only change is an edited target: gated pair by pair (their other pairs'
    # digests and anchor keys not computed), with the rows of a recomputation
    assert 0 < by_pair <= sources - quiet
    # a computed source copies the rows of its pairs that did not change, computes the others
    # (an edited page moving among a source's hits changes none of its other pairs' rows: the
    # rows hold no rank)
    assert pairs > 0
    # every pair whose names-only placements c1 made comes from c1: in a copied row or reused
    # by name key; the pairs of the edited page as a target among them: its names stayed, so
    # their name keys did while their anchor keys changed
    named = _copied_pairs(db, "c2", "c1", "name_key")
    assert reused + _copied_pairs(db, "c2", "c1") == named > len(shared)
    assert _rows(db, "c2") == incremental
    # the kept pairs' windows: c2 took c1's placements of the keys both have, placed the rest;
    # placing every kept pair from scratch gives the very same suggestions and placements
    suggestions, placements = _opportunities(db, "c2"), _kept_placements(db, "c2")
    kept_shared = set(placements) & set(_kept_placements(db, "c1"))
    assert 0 < len(kept_shared) < len(placements) == len(suggestions)
    fresh = materialize_link_opportunities(db, "c2", fake_model, reuse=False)
    assert fresh.meta["placements_made"] == len(placements)
    assert _opportunities(db, "c2") == suggestions
    # the same placements, as far as each was made (lazily: as the crawl's ledger needed)
    assert placements_agree(_kept_placements(db, "c2").values(), placements.values())


def test_a_third_crawl_keeps_searches_stored_by_quiet_sources_and_equals_a_recomputation(
    tmp_path, fake_model
):
    """The searches a crawl keeps are those the previous crawl stored, also for sources it
    found quiet (their rows copied): a quiet source searched again stores what this crawl's
    indexes found (a touched page's similarity, the neighbours it does not read, the cut and
    floor), so that the crawl after it keeps them from this crawl's state."""
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "t.duckdb"
    with serve_site(site_root) as site:
        _crawl(db, site.base_url, "c1", fake_model)
        _edit_pages(site_root, 1)
        _crawl(db, site.base_url, "c2", fake_model)
        _edit_pages(site_root, 3)  # the first page again, two more
        _crawl(db, site.base_url, "c3", fake_model)
    stored = _all(
        db,
        """SELECT count(*) FILTER (WHERE gate_hits IS NOT NULL AND lexical_hits IS NOT NULL),
                  count(*)
           FROM candidate_sources WHERE crawl_id = 'c2'""",
    )[0]
    assert stored[0] == stored[1] > 0  # every source of c2 stored its searches
    incremental = _rows(db, "c3")
    kept = 0
    for shard in range(DEFAULT_SHARDS):
        meta = materialize_candidate_pairs(db, "c3", shard, fake_model).meta
        kept += meta["sources_hits_kept"] + meta["sources_lists_kept"]
    assert kept > 0
    assert _rows(db, "c3") == incremental
    lists = _stored_lists(db, "c3")
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, "c3", shard, fake_model, reuse=False)
    assert _rows(db, "c3") == incremental  # recomputed from scratch: the very same rows
    searched = _stored_lists(db, "c3")  # every source's lists as the indexes find them
    assert lists.keys() == searched.keys()
    for source, (hits, floor, cut, high) in lists.items():
        found, found_floor, found_cut, _ = searched[source]
        assert hits == found and floor == pytest.approx(found_floor, abs=1e-12)
        if cut is None:
            assert found_cut is None
        else:  # the cut kept as stored, or as a range when pages entered the ones ordered
            assert cut - 1e-9 <= found_cut <= (cut if high is None else high) + 1e-9


def _stored_lists(db: Path, crawl_id: str) -> dict[str, tuple]:
    """Each source's stored TF-IDF list, floor, cut and the cut's high end."""
    rows = _all(
        db,
        """SELECT source_url, lexical_hits, lexical_floor, lexical_cut, lexical_cut_high
           FROM candidate_sources WHERE crawl_id = ? AND lexical_hits IS NOT NULL""",
        crawl_id,
    )
    return {r[0]: tuple(r[1:]) for r in rows}


def test_an_unchanged_site_copies_every_shard_and_the_copy_equals_a_recomputation(
    tmp_path, fake_model
):
    db = tmp_path / "u.duckdb"  # the whole site both times: a page cap crawls different pages
    run_demo_crawls(db, ("c1", "c2"), fake_model)
    copied = _rows(db, "c2")
    assert copied and copied == _rows(db, "c1")
    con = duckdb.connect(str(db), read_only=True)
    digests = con.execute(
        "SELECT crawl_id, shard, digest FROM candidate_inputs ORDER BY shard, crawl_id"
    ).fetchall()
    con.close()
    assert len(digests) == 2 * DEFAULT_SHARDS
    assert all(a[2] == b[2] for a, b in zip(digests[::2], digests[1::2], strict=True))
    for shard in range(DEFAULT_SHARDS):
        result = materialize_candidate_pairs(db, "c2", shard, fake_model, reuse=False)
        assert result.meta["copied_from"] == ""
    assert _rows(db, "c2") == copied  # recomputed from scratch: the very same rows
    for shard in range(DEFAULT_SHARDS):
        result = materialize_candidate_pairs(db, "c2", shard, fake_model)
        assert result.meta["copied_from"] == "c1" and result.preview == []
    assert _rows(db, "c2") == copied
    # another model is another input: nothing to copy
    other = materialize_candidate_pairs(db, "c2", 0, fake_model, k=7)
    assert other.meta["copied_from"] == ""


def test_an_added_link_recomputes_the_pairs_it_changes_and_copies_the_rest(tmp_path, fake_model):
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "l.duckdb"
    page = site_root / "blog" / "brief-writers-love" / "index.html"
    with serve_site(site_root) as site:
        _crawl(db, site.base_url, "c1", fake_model)
        link = '<p>Pruning old posts is its own craft: <a href="/guides/content-pruning/">'
        page.write_text(page.read_text().replace("<p>", link + "retire thin pages</a>.</p><p>", 1))
        _crawl(db, site.base_url, "c2", fake_model)
    target = f"{site.base_url}/guides/content-pruning/"
    incremental = _rows(db, "c2")
    # the new anchor names the target: every earlier pair with it reads a new target key, so
    # none of them is copied, while pairs elsewhere are
    moved = _one(
        db,
        """SELECT count(*) FILTER (WHERE p.pair_digest IN (SELECT pair_digest
                                     FROM candidate_pairs WHERE crawl_id = 'c1')),
                  count(*)
           FROM candidate_pairs p WHERE p.crawl_id = 'c2' AND p.target_url = ?""",
        target,
    )
    assert moved[1] > 0 and moved[0] == 0
    assert _copied_pairs(db, "c2", "c1") > 0
    # a pair whose co-citation the new link changed is computed, but its anchor key (the two
    # pages' texts and names) is c1's: it takes c1's placements by key
    reused = 0
    for shard in range(DEFAULT_SHARDS):
        reused += materialize_candidate_pairs(db, "c2", shard, fake_model).meta["anchors_reused"]
    assert reused > 0
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, "c2", shard, fake_model, reuse=False)
    assert _rows(db, "c2") == incremental  # the very rows of a recomputation from scratch


def _most_mentioned_name(db: Path, crawl_id: str) -> tuple[str, str]:
    """(name key, phrase) of the name of several words the most candidate rows found."""
    return _one(
        db,
        """SELECT p.mention_key, any_value(p.mention_phrase) FROM candidate_pairs p
           WHERE p.crawl_id = ? AND contains(p.mention_key, ' ')
           GROUP BY p.mention_key ORDER BY count(*) DESC, p.mention_key LIMIT 1""",
        crawl_id,
    )


def _page_without(db: Path, crawl_id: str, phrase: str) -> str:
    """An article page (a path under a section) whose main text does not have ``phrase``."""
    return _one(
        db,
        """SELECT url FROM page_summaries WHERE crawl_id = ? AND main_text IS NOT NULL
           AND NOT contains(lower(main_text), lower(?)) AND regexp_matches(url, '/[^/]+/[^/]+/$')
           ORDER BY url LIMIT 1""",
        crawl_id,
        phrase,
    )[0]


def _mention_rows(db: Path, crawl_id: str, key: str) -> dict[tuple[str, str], tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(
            """SELECT source_url, target_url, mention_pages, mention_links, mention_score
               FROM candidate_pairs WHERE crawl_id = ? AND mention_key = ?""",
            [crawl_id, key],
        ).fetchall()
    finally:
        con.close()
    return {(r[0], r[1]): r[2:] for r in rows}


def test_a_name_counted_on_one_more_page_updates_copied_rows_without_computing_them(
    tmp_path, fake_model
):
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "m.duckdb"
    with serve_site(site_root) as site:
        _crawl(db, site.base_url, "c1", fake_model)
        key, phrase = _most_mentioned_name(db, "c1")
        page = _page_without(db, "c1", phrase)
        path = site_root / page.removeprefix(site.base_url + "/") / "index.html"
        path.write_text(path.read_text().replace("</p>", f" Compare {phrase} here.</p>", 1))
        _crawl(db, site.base_url, "c2", fake_model)
    counted = "SELECT mentioned_by FROM site_names WHERE crawl_id = ? AND name_key = ?"
    assert _one(db, counted, "c2", key)[0] == _one(db, counted, "c1", key)[0] + 1
    before, after = _mention_rows(db, "c1", key), _mention_rows(db, "c2", key)
    kept = {
        r[0]
        for r in duckdb.connect(str(db), read_only=True)
        .execute(
            """SELECT a.source_url FROM candidate_sources a JOIN candidate_sources b
               ON b.source_url = a.source_url AND b.digest = a.digest
               WHERE a.crawl_id = 'c2' AND b.crawl_id = 'c1'"""
        )
        .fetchall()
    }
    moved = [pair for pair in after if pair in before and pair[0] in kept and pair[0] != page]
    assert moved  # sources whose rows were copied although their name's count changed ...
    for pair in moved:  # ... carry this crawl's count and probability, not c1's
        assert after[pair][0] == before[pair][0] + 1
        assert after[pair][2] < before[pair][2] or after[pair][1] > before[pair][1]
    _assert_counts_are_the_name_index(db, "c2")
    incremental = _rows(db, "c2")
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, "c2", shard, fake_model, reuse=False)
    assert _rows(db, "c2") == incremental  # the very rows of a recomputation from scratch


def _assert_counts_are_the_name_index(db: Path, crawl_id: str) -> None:
    """Every stored row's mention counts and probability are what the crawl's name index
    (MentionIndex, from site_names) gives, less the row's own link for a linked pair."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = fetch_frame(con, "read/select_site_names", [crawl_id])
        rows = con.execute(
            """SELECT target_url, mention_key, mention_phrase, already_linked_content,
                      mention_score, mention_pages, mention_links
               FROM candidate_pairs WHERE crawl_id = ? AND mention_key IS NOT NULL""",
            [crawl_id],
        ).fetchall()
    finally:
        con.close()
    index = MentionIndex.from_frame(names)
    assert rows
    for target, key, phrase, linked, score, pages, links in rows:
        p, m, n = index.probability(tuple(key.split(" ")), target)
        mention = Mention(target, phrase, "title", round(p, 6), m, n, key)
        if linked:
            mention = index.without_one_link(mention)
        assert (pages, links) == (mention.mentions, mention.links)
        assert score == pytest.approx(mention.probability, abs=1e-6)


def _new_name(db: Path, crawl_id: str) -> tuple[str, str, str]:
    """(a page to rename, a two-word phrase of content words that several other pages' main
    texts hold and that names no page yet, another page to rename)."""
    names = {r[0] for r in _all(db, "SELECT name_key FROM site_names WHERE crawl_id = ?", crawl_id)}
    texts = _all(
        db, "SELECT url, main_text FROM page_summaries WHERE crawl_id = ? ORDER BY url", crawl_id
    )
    holders: dict[tuple[str, str], set[str]] = {}
    spelled: dict[tuple[str, str], str] = {}
    for url, text in texts:
        words = TOKEN_RE.findall(text or "")
        for a, b in zip(words, words[1:], strict=False):
            key = (stem(a), stem(b))
            if a.isalpha() and b.isalpha() and not set(key) & stopword_stems() and len(a) > 3:
                holders.setdefault(key, set()).add(url)
                spelled.setdefault(key, f"{a} {b}")
    fresh = [k for k in holders if " ".join(k) not in names and 3 <= len(holders[k]) <= 6]
    key = sorted(fresh, key=lambda k: (-len(holders[k]), k))[0]
    pages = [url for url, _ in texts if url not in holders[key] and url.count("/") > 4]
    return pages[0], spelled[key].title(), pages[1]


def test_a_new_name_reads_only_the_sources_that_may_hold_it(tmp_path, fake_model):
    site_root = tmp_path / "site"
    shutil.copytree(DEMO_SITE, site_root)
    db = tmp_path / "n.duckdb"
    with serve_site(site_root) as site:
        _crawl(db, site.base_url, "c1", fake_model)
        page, phrase, other = _new_name(db, "c1")
        _retitle(site_root / page.removeprefix(site.base_url + "/") / "index.html", phrase)
        _crawl(db, site.base_url, "c2", fake_model)
        # c3: another page is named after a word no page had (the statistics never saw it)
        _retitle(site_root / other.removeprefix(site.base_url + "/") / "index.html", "Quokkaz")
        _crawl(db, site.base_url, "c3", fake_model)
    named = "SELECT count(*) FROM site_names WHERE crawl_id = ? AND name_key = ?"
    assert _one(db, named, "c2", " ".join(stem(w) for w in phrase.split())) == (1,)
    assert _one(db, named, "c3", "quokkaz") == (1,)
    _assert_stored_keys_are_the_texts(db, "c3")
    c3 = [materialize_candidate_pairs(db, "c3", s, fake_model).meta for s in range(4)]
    # read: the pages changed since the fit (c1), not every source
    assert 1 <= sum(m["names_reach"] for m in c3) < sum(m["sources"] for m in c3) // 2
    incremental = _rows(db, "c2")
    meta = [materialize_candidate_pairs(db, "c2", s, fake_model).meta for s in range(4)]
    assert _rows(db, "c2") == incremental
    assert sum(m["names_added"] for m in meta) >= 4  # every shard sees the new names ...
    reach = sum(m["names_reach"] for m in meta)
    sources = sum(m["sources"] for m in meta)
    assert 3 <= reach < sources // 2  # ... and reads the few sources that may hold them
    # the others pass the gate (the renamed page's pairs aside): 28 of 57 quiet and 6 gated
    # by pair when this was written; with the site's names in the gate digest, none was
    quiet = sum(m["sources_quiet"] for m in meta)
    assert quiet > 0 and quiet + sum(m["sources_gated_by_pair"] for m in meta) >= sources // 2
    _assert_stored_keys_are_the_texts(db, "c2")
    for shard in range(DEFAULT_SHARDS):
        materialize_candidate_pairs(db, "c2", shard, fake_model, reuse=False)
    assert _rows(db, "c2") == incremental  # the very rows of a recomputation from scratch


def _retitle(path: Path, title: str) -> None:
    """Give the page at ``path`` another title and H1."""
    html = re.sub(r"<title>.*?</title>", f"<title>{title}</title>", path.read_text(), count=1)
    path.write_text(re.sub(r"<h1>.*?</h1>", f"<h1>{title}</h1>", html, count=1))


def _assert_stored_keys_are_the_texts(db: Path, crawl_id: str) -> None:
    """Every source's stored name keys are those its main text holds as the crawl's names go."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        index = MentionIndex.from_frame(fetch_frame(con, "read/select_site_names", [crawl_id]))
        rows = con.execute(
            """SELECT s.source_url, s.name_keys, p.main_text FROM candidate_sources s
               JOIN page_summaries p ON p.crawl_id = s.crawl_id AND p.url = s.source_url
               WHERE s.crawl_id = ? AND s.name_keys IS NOT NULL""",
            [crawl_id],
        ).fetchall()
    finally:
        con.close()
    assert len(rows) > 10
    for _, stored, text in rows:
        stems = [t[0] for t in tokens_with_offsets(text or "")]
        assert stored == sorted(" ".join(k) for k in index.keys_in(stems))
