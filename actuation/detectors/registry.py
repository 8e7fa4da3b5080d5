"""The detectors actuation ships, registered from `ActuationConfig.ready()`."""

from __future__ import annotations

from actuation.detectors import claude_md
from actuation.detectors.base import detector_register

SHIPPED = (claude_md.DETECTOR,)


def detectors_register() -> None:
    for detector in SHIPPED:
        detector_register(detector)
