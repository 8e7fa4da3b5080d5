"""The sleep cycle's steps: a registry others extend (compiled truth, actuation detectors)."""
