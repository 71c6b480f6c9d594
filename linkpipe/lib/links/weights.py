"""Relevance weights learned per site from the links its authors already placed.

Every source's candidate search also reaches pages the source already links in content; those
pairs come back as ``candidate_pairs`` rows flagged ``already_linked_content``, with the same
evidence as a candidate except what the link itself would give away (see
:func:`linkpipe.lib.links.candidates.labelled_rows`). They are the positives, the unlinked
candidates of the same searches the negatives. A logistic model with non-negative weights over
the five relevance components (semantic, lexical, title, mention, graph) is fitted on the pairs
of 80 % of the sources and validated on the other 20 % (split by a hash of the source URL's path, so
no source's links are on both sides). The weights used are ``learned_share`` (half) of the
fitted ones and the rest of the configured ones: a site's links show what its authors link,
mostly names they write, and under-represent what linkpipe is for, pages that belong together
without sharing words; fitted alone, semantic similarity can drop to zero. The blend replaces
the defaults only when it ranks the held-out sources' linked pairs better (average precision)
than the defaults do; the site must have ``min_linked_pairs`` labelled pairs of each class. It
is refitted on every source for use, and ``min_relevance`` is moved so that the same share of
candidates passes it as with the defaults (the number of suggestions does not swing). The
weights are steps of :data:`WEIGHT_STEP` and the threshold is rounded (:func:`stepped`), so
that a refit on a site that barely changed scores an unchanged pair the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from linkpipe.lib.hashing import url_number
from linkpipe.lib.links.pair_table import PairTable, as_table
from linkpipe.lib.links.priorities import WEIGHTS, component_matrix
from linkpipe.lib.links.rows import CandidatePair
from linkpipe.lib.links.scoring_config import ScoringConfig

HELD_OUT_BUCKETS = 5  # one source in five validates
MIN_HELD_OUT = 10  # held-out pairs of each class needed to judge a fit
MIN_GAIN = 0.005  # held-out average precision the fit must gain over the defaults
L2 = 1e-3  # ridge on the weights, per pair
WEIGHT_STEP = 0.01  # the weights used are multiples of it (see :func:`stepped`)
THRESHOLD_DECIMALS = 3  # the matched threshold's rounding


@dataclass(frozen=True, slots=True)
class Evidence:
    """The labelled pairs a fit saw and how each set of weights ranked the held-out ones."""

    positives: int = 0  # labelled pairs: linked in content
    negatives: int = 0  # candidates not linked
    held_out_positives: int = 0
    held_out_negatives: int = 0
    ap_default: float | None = None  # held-out average precision of the configured weights
    ap_fitted: float | None = None  # ... and of weights fitted without the held-out sources


@dataclass(frozen=True, slots=True)
class WeightFit:
    """The weights a crawl is scored with and why (a ``scoring_weights`` row)."""

    method: str  # "fitted" or "default"
    weights: dict[str, float]  # WEIGHTS -> weight
    min_relevance: float
    evidence: Evidence
    reason: str

    def apply(self, config: ScoringConfig) -> ScoringConfig:
        """``config`` with these weights and relevance threshold."""
        w = self.weights
        return replace(
            config, w_semantic=w["w_semantic"], w_lexical=w["w_lexical"], w_title=w["w_title"],
            w_mention=w["w_mention"], w_graph=w["w_graph"], min_relevance=self.min_relevance,
        )  # fmt: skip

    def record(self) -> dict[str, object]:
        """The ``scoring_weights`` columns."""
        evidence = {f: getattr(self.evidence, f) for f in self.evidence.__dataclass_fields__}
        return {"method": self.method, **self.weights, "min_relevance": self.min_relevance,
                **evidence, "reason": self.reason}  # fmt: skip


def held_out(source_url: str) -> bool:
    """Whether a source's pairs validate (True) or train: a stable hash of its URL's path and
    query, not of its host (a site served elsewhere, or on another port as ``linkpipe eval``
    serves each run, is split the same way: the held-out sources once followed the port)."""
    return url_number(source_url, 1) % HELD_OUT_BUCKETS == 0


def labelled_matrix(
    config: ScoringConfig, pairs: PairTable
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """(components per pair, linked, held out) of the labelled pairs."""
    x = component_matrix(config, pairs)
    sources = np.unique(pairs.source)
    held_source = np.zeros(len(pairs.urls), dtype=np.bool_)
    held_source[sources] = [held_out(pairs.urls[s]) for s in sources.tolist()]
    return x, pairs.linked, held_source[pairs.source]


def fit_logistic(x: NDArray[np.float64], y: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Non-negative weights (and a free intercept, dropped) of a class-balanced logistic
    model of ``y`` on ``x``, by L-BFGS-B."""
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    sample = np.where(y, 0.5 / max(n_pos, 1), 0.5 / max(n_neg, 1))
    sign = np.where(y, 1.0, -1.0)

    def loss(params: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        margin = sign * (x @ params[:-1] + params[-1])
        value = float(np.sum(sample * np.logaddexp(0.0, -margin)))
        slope = -sample * sign / (1.0 + np.exp(margin))
        grad = np.append(x.T @ slope, slope.sum())
        grad[:-1] += 2 * L2 * params[:-1]
        return value + L2 * float(params[:-1] @ params[:-1]), grad

    from scipy.optimize import minimize  # ~0.4 CPU-s to import: only a run that fits pays it

    bounds = [(0.0, None)] * x.shape[1] + [(None, None)]
    start = np.append(np.ones(x.shape[1]), 0.0)
    result = minimize(loss, start, jac=True, method="L-BFGS-B", bounds=bounds)
    weights: NDArray[np.float64] = np.asarray(result.x[:-1], dtype=np.float64)
    return weights


def default_vector(config: ScoringConfig) -> NDArray[np.float64]:
    """The configured weights as a vector in :data:`WEIGHTS` order."""
    return np.array([getattr(config, name) for name in WEIGHTS], dtype=np.float64)


def blend(config: ScoringConfig, fitted: NDArray[np.float64]) -> NDArray[np.float64]:
    """``learned_share`` of the fitted weights (scaled to sum 1) and the rest of the
    configured ones, summing to 1 (the configured ones alone when the fit is all zero)."""
    default: NDArray[np.float64] = default_vector(config) / default_vector(config).sum()
    if fitted.sum() <= 0:
        return default
    mixed = config.learned_share * fitted / fitted.sum() + (1 - config.learned_share) * default
    return np.asarray(mixed / mixed.sum(), dtype=np.float64)


def average_precision(scores: NDArray[np.float64], y: NDArray[np.bool_]) -> float:
    """Average precision of ``scores`` ranking the positives of ``y`` first: precision at each
    distinct score, weighted by the recall it adds, computed step by step as scikit-learn's
    ``average_precision_score`` does (the same value; its import cost ~1 CPU-s a process)."""
    order = np.argsort(scores, kind="mergesort")[::-1]
    ranked, hits = scores[order], y[order]
    at = np.r_[np.where(np.diff(ranked))[0], len(ranked) - 1]  # the last of each score
    tps = np.cumsum(hits, dtype=np.float64)[at]
    precision = tps / (1 + at)  # true positives over the pairs ranked so far
    recall = tps / tps[-1] if tps[-1] > 0 else np.ones_like(tps)
    precision, recall = np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0]
    return round(max(0.0, float(-np.sum(np.diff(recall) * precision[:-1]))), 4)


def matched_threshold(
    config: ScoringConfig, x: NDArray[np.float64], weights: NDArray[np.float64]
) -> float:
    """The relevance threshold under ``weights`` that the same share of ``x`` passes as
    ``config.min_relevance`` lets pass under the configured weights."""
    if len(x) == 0:
        return config.min_relevance
    passing = float(np.mean(x @ default_vector(config) >= config.min_relevance))
    if passing <= 0.0:
        return config.min_relevance
    return round(float(np.quantile(x @ weights, 1.0 - passing)), THRESHOLD_DECIMALS)


def default_fit(config: ScoringConfig, reason: str, evidence: Evidence | None = None) -> WeightFit:
    """The configured weights, with why they were kept."""
    weights = {name: float(getattr(config, name)) for name in WEIGHTS}
    return WeightFit("default", weights, config.min_relevance, evidence or Evidence(), reason)


def fit_site_weights(
    config: ScoringConfig,
    pairs: PairTable | Sequence[CandidatePair],
    min_linked_pairs: int = 50,
) -> WeightFit:
    """The weights to score the site with: fitted on its labelled ``pairs`` (candidates and
    already-linked rows, self pairs and pages that are not targets left out by the caller)
    when the site has enough links and the fit beats the defaults on held-out sources."""
    if not len(pairs):
        return default_fit(config, "defaults: no candidate pairs")
    x, y, held = labelled_matrix(config, as_table(pairs))
    counts = Evidence(int(y.sum()), int((~y).sum()), int((y & held).sum()), int((~y & held).sum()))
    if min(counts.positives, counts.negatives) < min_linked_pairs:
        why = f"{counts.positives} linked pairs and {counts.negatives} others"
        return default_fit(config, f"defaults: {why}, fewer than {min_linked_pairs}", counts)
    if min(counts.held_out_positives, counts.held_out_negatives) < MIN_HELD_OUT:
        return default_fit(config, "defaults: too few held-out pairs to judge a fit", counts)
    train = ~held
    trial = blend(config, fit_logistic(x[train], y[train]))
    judged = replace(
        counts,
        ap_default=average_precision(x[held] @ default_vector(config), y[held]),
        ap_fitted=average_precision(x[held] @ trial, y[held]),
    )
    ap_fit, ap_def = judged.ap_fitted or 0.0, judged.ap_default or 0.0
    if ap_fit < ap_def + MIN_GAIN:
        why = f"held-out AP {ap_fit:.3f} vs {ap_def:.3f}"
        return default_fit(config, f"defaults: the fit does not beat them ({why})", judged)
    return fitted(config, x, y, judged)


def fitted(
    config: ScoringConfig, x: NDArray[np.float64], y: NDArray[np.bool_], evidence: Evidence
) -> WeightFit:
    """Weights refitted on every labelled pair and blended, with a matched threshold."""
    raw = blend(config, fit_logistic(x, y))
    weights = dict(zip(WEIGHTS, stepped(raw), strict=True))
    vector = np.array([weights[name] for name in WEIGHTS])
    reason = (
        f"{config.learned_share:.0%} fitted on {evidence.positives} linked pairs, the rest "
        f"defaults; held-out AP {evidence.ap_fitted:.3f} vs {evidence.ap_default:.3f}"
    )
    threshold = matched_threshold(config, x[~y], vector)
    return WeightFit("fitted", weights, threshold, evidence, reason)


def stepped(raw: NDArray[np.float64]) -> list[float]:
    """``raw`` (non-negative, scaled to sum 1) as multiples of :data:`WEIGHT_STEP` that sum to 1:
    each rounded down, the steps left to the largest remainders (the first of equal ones).
    The fit moves by ~1e-4 when a nightly refresh edits 1 % of a site; on the step's grid the
    weights, and with them the score of every pair whose evidence did not change, usually
    stay the same to the bit: the suggestions do not jitter from night to night, and the
    refresh places anchors only for the pairs that really changed."""
    steps = round(1 / WEIGHT_STEP)
    scaled = raw / raw.sum() * steps
    units = np.floor(scaled).astype(np.int64)
    left = steps - int(units.sum())
    units[np.argsort(units - scaled, kind="stable")[:left]] += 1
    return [int(u) / steps for u in units]
