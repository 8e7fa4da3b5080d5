from insight.models.cursors import AnalyzerCursor

__all__ = ["AnalyzerCursor"]
from insight.models.ingest import GitRepository, SourceFile  # noqa: E402

__all__ += ["GitRepository", "SourceFile"]
