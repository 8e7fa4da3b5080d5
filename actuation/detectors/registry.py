"""The detectors actuation ships, registered from `ActuationConfig.ready()`."""

from __future__ import annotations

from actuation.detectors import allowlist, claude_md, corrections, instructions, skill, style
from actuation.detectors.base import detector_register

SHIPPED = (claude_md.DETECTOR, allowlist.DETECTOR, instructions.DETECTOR,
           corrections.DETECTOR, skill.DETECTOR, style.DETECTOR)


def detectors_register() -> None:
    for detector in SHIPPED:
        detector_register(detector)
