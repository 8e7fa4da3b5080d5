from insight.models.cursors import AnalyzerCursor

__all__ = ["AnalyzerCursor"]
