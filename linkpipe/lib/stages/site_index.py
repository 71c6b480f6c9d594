"""The lexical index of a crawl's site models, measured: its recall@k against exact TF-IDF
search on a sample, the index widened while it is below the target, or the settings and
measure an update of the previous crawl's models keeps (see
:mod:`linkpipe.lib.stages.site_models`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from linkpipe.lib.links.site_models import SiteModels
from linkpipe.lib.storage import fetch_dicts, open_db
from linkpipe.lib.text.lexical_index import (
    MAX_WIDENINGS,
    IndexSettings,
    LexicalIndex,
    sample_rows,
    tune_index,
)

RECALL_K = 10  # lexical neighbours compared with the exact top-k
RECALL_QUERIES = 500  # pages sampled to measure it
RECALL_TARGET = 0.95  # the index is widened until it finds this share of the exact top-k


@dataclass(frozen=True)
class Measured:
    """The lexical index's settings and its recall@``RECALL_K`` on ``sampled`` pages of the
    crawl ``measured_in``."""

    settings: IndexSettings
    recall: float
    sampled: int
    measured_in: str


def index_of(
    db_path: str | Path,
    models: SiteModels,
    crawl_id: str,
    updated_from: str | None,
    start: IndexSettings | None,
) -> Measured:
    """The lexical index of crawl ``crawl_id``'s ``models``, measured: models updated from
    those of the crawl ``updated_from`` keep that crawl's index and its measure
    (:func:`kept_index`; an update keeps the TF-IDF statistics, so few pages changed since
    their fit, see :func:`~linkpipe.lib.stages.site_models.kept_fit`; the recall is measured
    again with the next refit or build); else the index is tuned here from ``start``."""
    kept = kept_index(db_path, updated_from, start) if updated_from is not None else None
    if kept is not None:
        models.index = LexicalIndex(models.tfidf.matrix, kept.settings)
        return kept
    recall, sampled = tune_lexical_index(models)
    return Measured(models.index.settings, recall, sampled, crawl_id)


def kept_index(db_path: str | Path, previous: str, start: IndexSettings | None) -> Measured | None:
    """The index settings and measure stored with the ``previous`` crawl's models, when tuning
    from ``start`` (default :class:`IndexSettings`) could have reached those settings; None
    when it could not or nothing was measured."""
    with open_db(db_path) as con:
        found = fetch_dicts(con, "read/select_site_model", [previous])
    if not found or found[0]["lexical_recall_at_k"] is None:
        return None
    row = found[0]
    settings = IndexSettings(row["posting_cap"], row["rerank"], row["query_terms"])
    reachable = [start or IndexSettings()]
    for _ in range(MAX_WIDENINGS):
        reachable.append(reachable[-1].wider())
    if settings not in reachable:
        return None
    measured_in = row["recall_measured_in"] or previous
    return Measured(settings, row["lexical_recall_at_k"], row["recall_queries"] or 0, measured_in)


def tune_lexical_index(models: SiteModels) -> tuple[float, int]:
    """(recall@``RECALL_K``, pages sampled) of the models' lexical index against exact search
    on ``RECALL_QUERIES`` sampled pages; the index is widened in place while its recall is
    below ``RECALL_TARGET``."""
    sample = sample_rows(len(models.tfidf.urls), RECALL_QUERIES)
    models.index, recall = tune_index(models.index, sample, RECALL_K, RECALL_TARGET)
    return recall, len(sample)
