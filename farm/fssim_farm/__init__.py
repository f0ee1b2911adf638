"""fssim-farm: score titles with the fssim filters in segments on a Dask
cluster, merge the segment logs exactly, report (doc/farm.md)."""
__version__ = "0.1.0"

from .api import batch, compare, merge_segments, score, write_report  # noqa: E402,F401
from .errors import FarmError, Interrupted, LogError, ScoreError  # noqa: E402,F401

__all__ = ["score", "batch", "merge_segments", "write_report", "compare", "FarmError", "LogError",
           "ScoreError", "Interrupted"]
