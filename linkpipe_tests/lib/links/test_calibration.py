"""The calibrated confidence: monotone in the score, within 0..1, fitted on linked pairs when
there are enough, else the percentile among the site's suggestions."""

from __future__ import annotations

import random

import pytest

from linkpipe.lib.links.calibration import (
    calibrate,
    fit_isotonic,
    fit_percentile,
    pool_adjacent,
)


def grid(n: int = 400) -> list[float]:
    return [i / (n - 1) * 1.2 - 0.1 for i in range(n)]  # beyond both ends of the data


def assert_monotone_in_unit(values: list[float]) -> None:
    assert all(0.0 <= v <= 1.0 for v in values)
    assert all(a <= b for a, b in zip(values, values[1:], strict=False))


def test_pool_adjacent_violators() -> None:
    assert pool_adjacent([0.1, 0.3, 0.2, 0.5], [1, 1, 1, 1]) == pytest.approx(
        [0.1, 0.25, 0.25, 0.5]
    )
    assert pool_adjacent([1.0, 0.0], [3, 1]) == pytest.approx([0.75, 0.75])


@pytest.mark.parametrize("seed", range(5))
def test_fitted_share_is_monotone_and_tracks_the_labels(seed: int) -> None:
    rng = random.Random(seed)
    scores = [rng.random() for _ in range(2000)]
    labels = [rng.random() < s * s for s in scores]  # P(linked | s) = s^2
    cal = fit_isotonic(scores, labels)
    assert cal.method == "fitted"
    assert_monotone_in_unit([cal.confidence(s) for s in grid()])
    assert cal.confidence(0.1) < 0.1 and cal.confidence(0.9) > 0.6
    assert cal.confidence(0.5) == pytest.approx(0.25, abs=0.1)


def test_percentile_is_the_share_scoring_lower_or_equal() -> None:
    cal = fit_percentile([0.1, 0.2, 0.3, 0.4])
    assert [cal.confidence(s) for s in (0.1, 0.2, 0.3, 0.4)] == [0.25, 0.5, 0.75, 1.0]
    assert cal.confidence(0.0) == 0.25 and cal.confidence(9.0) == 1.0
    assert cal.confidence(0.25) == pytest.approx(0.625)
    rng = random.Random(1)
    many = fit_percentile([rng.gauss(0.2, 0.05) for _ in range(5000)])
    assert_monotone_in_unit([many.confidence(s) for s in grid()])
    assert len(many.scores) <= 101


def test_ties_and_empty_inputs() -> None:
    cal = fit_percentile([0.3] * 10 + [0.5])
    assert cal.confidence(0.3) == pytest.approx(10 / 11, abs=1e-4)
    assert fit_percentile([]).confidence(0.3) == 0.0
    assert fit_isotonic([], []).confidence(0.3) == 0.0
    flat = fit_isotonic([0.2] * 50, [True, False] * 25)
    assert flat.confidence(0.2) == 0.5


def test_calibrate_fits_with_enough_labels_else_ranks_suggestions() -> None:
    scores = [i / 100 for i in range(100)]
    labels = [s > 0.7 for s in scores]
    fitted = calibrate(scores, labels, suggested=[0.5, 0.9])
    assert fitted.method == "fitted" and fitted.confidence(0.95) == pytest.approx(5.5 / 6, abs=1e-4)
    assert fitted.confidence(0.2) == pytest.approx(0.5 / 6, abs=1e-4)  # smoothed: rare, not never
    few = calibrate(scores, [s > 0.95 for s in scores], suggested=[0.5, 0.9])
    assert few.method == "percentile"
    assert (few.confidence(0.5), few.confidence(0.9)) == (0.5, 1.0)


def test_bins_take_equal_counts_and_keep_equal_scores_together() -> None:
    """25 scores, bins of 5: the third bin's fifth score (0.4) recurs, so it takes all seven
    scores up to the last 0.4, and the fourth (0.6, 0.6, 0.6, 0.8, 0.8) every 0.8 left; the
    knots are each bin's mean score, the values its smoothed share of links."""
    scores = [0.0] * 5 + [0.2] * 5 + [0.3, 0.3, 0.4, 0.4, 0.4, 0.4, 0.4] + [0.6] * 3 + [0.8] * 5
    labels = [False] * 10 + [False, True] * 3 + [True] + [True] * 8
    cal = fit_isotonic(list(reversed(scores)), list(reversed(labels)), bins=5)
    assert cal.scores == pytest.approx((0.0, 0.2, (0.6 + 2.0) / 7, (1.8 + 4.0) / 8))
    assert cal.values == pytest.approx((0.5 / 6, 0.5 / 6, 4.5 / 8, 8.5 / 9), abs=1e-6)
