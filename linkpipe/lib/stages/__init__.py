"""One function per asset: read inputs from DuckDB, compute with lib/, write one partition.

Dagster assets (linkpipe/defs) and nothing else call these. Each returns a :class:`StageResult`.
"""

from linkpipe.lib.stages.common import StageResult

__all__ = ["StageResult"]
