"""Weights learned per site from its own links: fit, held-out judgement, fallbacks, scoring."""

import random

import numpy as np
import pytest

from linkpipe.lib.links.priorities import WEIGHTS, component_matrix
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import PageFacts, ScoringConfig
from linkpipe.lib.links.site_scoring import score_site
from linkpipe.lib.links.weights import (
    HELD_OUT_BUCKETS,
    WEIGHT_STEP,
    blend,
    fit_site_weights,
    held_out,
    matched_threshold,
    stepped,
)


def _pair(source: str, target: str, linked: bool, **evidence: float) -> CandidatePair:
    values = {"semantic_sim": 0.5, "lexical_sim": 0.1, "title_match": 0.0, "mention_score": 0.0,
              "cocitation": 0.0, "shared_neighbors": 0.0, **evidence}  # fmt: skip
    return CandidatePair(
        source_url=source, target_url=target, mention_phrase=None,
        mention_pages=None, mention_links=None, already_linked_content=linked,
        already_linked_nav=False, **values,  # type: ignore[arg-type]
    )  # fmt: skip


def _site_where_mentions_decide(n_sources: int = 200, seed: int = 1) -> list[CandidatePair]:
    """Sources link the pages they name with a high link probability; semantic similarity
    says nothing (the same spread for linked and unlinked pairs)."""
    rng = random.Random(seed)
    pairs = []
    for s in range(n_sources):
        for t in range(6):
            linked = t < 2
            mention = rng.uniform(0.5, 0.9) if linked else rng.uniform(0.0, 0.3)
            pairs.append(_pair(f"/s{s}", f"/t{s}-{t}", linked, mention_score=mention,
                               semantic_sim=rng.uniform(0.3, 0.8),
                               lexical_sim=rng.uniform(0.0, 0.3)))  # fmt: skip
    return pairs


def test_the_split_is_by_source_and_stable() -> None:
    sources = [f"https://example.org/p{i}" for i in range(2000)]
    share = sum(map(held_out, sources)) / len(sources)
    assert abs(share - 1 / HELD_OUT_BUCKETS) < 0.03
    assert [held_out(s) for s in sources[:50]] == [held_out(s) for s in sources[:50]]


def test_a_site_whose_links_follow_its_mentions_gets_mention_heavy_weights() -> None:
    config = ScoringConfig(learned_share=1.0)  # the fit alone
    fit = fit_site_weights(config, _site_where_mentions_decide())
    assert fit.method == "fitted", fit.reason
    assert sum(fit.weights.values()) == pytest.approx(1.0, abs=1e-3)
    assert fit.weights["w_mention"] > 0.8
    assert fit.weights["w_semantic"] < config.w_semantic
    ev = fit.evidence
    assert (ev.positives, ev.negatives) == (400, 800)
    assert ev.ap_fitted is not None and ev.ap_default is not None
    assert ev.ap_fitted >= ev.ap_default + 0.005
    assert ev.held_out_positives + ev.held_out_negatives < 1200 / 2
    assert fit.reason.startswith("100% fitted on 400 linked pairs, the rest defaults; held-out")
    record = fit.record()
    assert record["method"] == "fitted" and record["positives"] == 400
    assert set(WEIGHTS) <= set(record)


def test_half_of_the_weights_used_are_learned_by_default() -> None:
    pairs = _site_where_mentions_decide()
    alone = fit_site_weights(ScoringConfig(learned_share=1.0), pairs).weights
    mixed = fit_site_weights(ScoringConfig(), pairs)
    assert mixed.reason.startswith("50% fitted on 400 linked pairs, the rest defaults")
    for name in WEIGHTS:
        expected = 0.5 * alone[name] + 0.5 * getattr(ScoringConfig(), name)
        assert mixed.weights[name] == pytest.approx(expected, abs=WEIGHT_STEP)
    assert mixed.weights["w_semantic"] >= 0.5 * ScoringConfig().w_semantic
    assert list(blend(ScoringConfig(), np.zeros(5))) == pytest.approx(
        [getattr(ScoringConfig(), w) for w in WEIGHTS]
    )


def test_the_fitted_threshold_lets_the_same_share_of_candidates_through() -> None:
    config = ScoringConfig()
    pairs = _site_where_mentions_decide()
    fit = fit_site_weights(config, pairs)
    candidates = [p for p in pairs if not p.already_linked_content]
    x = component_matrix(config, candidates)
    before = np.mean(x @ np.array([getattr(config, w) for w in WEIGHTS]) >= config.min_relevance)
    after = np.mean(x @ np.array([fit.weights[w] for w in WEIGHTS]) >= fit.min_relevance)
    assert abs(before - after) < 0.01
    assert matched_threshold(config, x[:0], np.ones(5)) == config.min_relevance  # no pairs


def test_too_few_links_keep_the_defaults_and_say_so() -> None:
    pairs = _site_where_mentions_decide(n_sources=20)  # 40 linked pairs
    fit = fit_site_weights(ScoringConfig(), pairs, min_linked_pairs=50)
    assert fit.method == "default"
    assert fit.weights == {w: getattr(ScoringConfig(), w) for w in WEIGHTS}
    assert fit.reason == "defaults: 40 linked pairs and 80 others, fewer than 50"
    assert fit.evidence.positives == 40 and fit.evidence.ap_fitted is None
    assert fit_site_weights(ScoringConfig(), []).reason == "defaults: no candidate pairs"


def test_defaults_that_already_rank_every_link_first_are_kept() -> None:
    """When the configured weights rank the held-out links perfectly, no fit can gain."""
    rng = random.Random(3)
    pairs = [
        _pair(f"/s{s}", f"/t{s}-{t}", t < 2, semantic_sim=0.84 if t < 2 else 0.3,
              title_match=1.0 if t < 2 else 0.0, mention_score=rng.uniform(0, 0.1))
        for s in range(200) for t in range(6)
    ]  # fmt: skip
    fit = fit_site_weights(ScoringConfig(), pairs)
    assert fit.method == "default"
    assert fit.evidence.ap_default == 1.0
    assert fit.reason.startswith("defaults: the fit does not beat them (held-out AP")


def test_score_site_scores_with_the_fitted_weights_and_never_suggests_linked_pairs() -> None:
    pairs = _site_where_mentions_decide()
    facts = {u: PageFacts(title=u) for p in pairs for u in (p.source_url, p.target_url)}
    learned = score_site(pairs, facts)
    fixed = score_site(pairs, facts, config=ScoringConfig(learn_weights=False))
    assert learned.weights.method == "fitted"
    assert fixed.weights.method == "default"
    assert fixed.weights.reason.startswith("defaults: learning is off")
    linked = {(p.source_url, p.target_url) for p in pairs if p.already_linked_content}
    for scores in (learned, fixed):
        assert scores.opportunities
        assert not {(r.source_url, r.target_url) for r in scores.opportunities} & linked
    w = learned.weights.weights
    row = learned.opportunities[0]
    pair = next(
        p for p in pairs if (p.source_url, p.target_url) == (row.source_url, row.target_url)
    )
    expected = sum(
        w[name] * v
        for name, v in zip(WEIGHTS, component_matrix(ScoringConfig(), [pair])[0], strict=True)
    )
    assert row.relevance == pytest.approx(expected, abs=1e-5)


def test_average_precision_is_scikit_learns() -> None:
    """The held-out average precision (computed by linkpipe: scikit-learn's import cost ~1
    CPU-s in every process) equals scikit-learn's, ties between scores included."""
    from sklearn.metrics import average_precision_score

    from linkpipe.lib.links.weights import average_precision

    rng = np.random.default_rng(1)
    assert average_precision(np.array([0.9, 0.8, 0.1]), np.array([True, False, True])) == 0.8333
    for _ in range(300):
        n = int(rng.integers(2, 200))
        scores = np.round(rng.random(n), int(rng.integers(1, 4)))  # few decimals: many ties
        y = rng.random(n) < rng.uniform(0.05, 0.9)
        y[0], y[-1] = True, False
        expected = round(float(average_precision_score(y, scores)), 4)
        assert average_precision(scores, y) == expected


def test_the_split_does_not_follow_the_host_or_port() -> None:
    """The same site served on another port (each ``linkpipe eval`` run) or host holds out the
    same sources: the held-out fit and its weights do not change with where it is served."""
    paths = [f"/docs/page-{i}.html" for i in range(200)] + ["/search?q=a", "/"]
    for path in paths:
        here = held_out(f"http://127.0.0.1:43067{path}")
        assert held_out(f"http://127.0.0.1:34851{path}") == here
        assert held_out(f"https://docs.example.com{path}") == here
    assert 0 < sum(held_out(f"http://h{p}") for p in paths) < len(paths)


def test_weights_are_steps_that_sum_to_one_the_largest_remainders_rounded_up() -> None:
    fitted = np.array([0.14, 0.1415, 0.1617, 0.4855, 0.0713])
    assert stepped(fitted) == [0.14, 0.14, 0.16, 0.49, 0.07]
    assert stepped(np.array([1.0, 1.0, 1.0, 0.0, 0.0])) == [0.34, 0.33, 0.33, 0.0, 0.0]
    assert stepped(np.array([0.104, 0.103, 0.102, 0.101, 0.59])) == [0.11, 0.1, 0.1, 0.1, 0.59]
    rng = np.random.default_rng(7)
    for _ in range(200):
        weights = stepped(rng.random(5) ** 3)
        assert sum(round(w / WEIGHT_STEP) for w in weights) == round(1 / WEIGHT_STEP)
        assert all(w == round(w, 2) >= 0 for w in weights)


def test_a_site_that_barely_changed_keeps_its_weights_and_scores_to_the_bit() -> None:
    """A refresh that changes a few pairs' evidence refits on nearly the same pairs: the
    weights and the threshold come out the same, so every unchanged pair scores the same."""
    pairs = _site_where_mentions_decide()
    edited = list(pairs)
    for i in (7, 301, 802):  # three pairs' evidence edited, one unlinked pair added
        p = edited[i]
        edited[i] = _pair(p.source_url, p.target_url, p.already_linked_content,
                          mention_score=p.mention_score * 0.9, semantic_sim=0.61)  # fmt: skip
    edited.append(_pair("/s0", "/t0-new", False, mention_score=0.2, semantic_sim=0.5))
    changed = {(p.source_url, p.target_url) for p in (edited[7], edited[301], edited[802])}
    before = fit_site_weights(ScoringConfig(), pairs)
    after = fit_site_weights(ScoringConfig(), edited)
    assert before.method == after.method == "fitted"
    assert after.weights == before.weights and after.min_relevance == before.min_relevance
    assert after.evidence.negatives == before.evidence.negatives + 1  # the fit saw the edit
    facts = {u: PageFacts(title=u) for p in edited for u in (p.source_url, p.target_url)}
    rows = {(r.source_url, r.target_url): r for r in score_site(pairs, facts).opportunities}
    again = {(r.source_url, r.target_url): r for r in score_site(edited, facts).opportunities}
    same = [k for k in rows if k in again and k not in changed]
    assert len(same) > 100
    assert all(again[k].relevance == rows[k].relevance for k in same)
