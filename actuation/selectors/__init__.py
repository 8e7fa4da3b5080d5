"""Reads of actuation: the graph as the detectors see it, proposals, repositories."""
