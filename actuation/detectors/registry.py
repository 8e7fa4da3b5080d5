"""The detectors actuation ships, registered from `ActuationConfig.ready()`."""

from __future__ import annotations

from actuation.detectors import allowlist, claude_md, corrections, instructions, skill
from actuation.detectors.base import detector_register

# No detector turns the interaction profile into a file change: a style is a profile of the
# operator (GET /api/profile/), not an instruction an agent can follow.
SHIPPED = (claude_md.DETECTOR, allowlist.DETECTOR, instructions.DETECTOR,
           corrections.DETECTOR, skill.DETECTOR)


def detectors_register() -> None:
    for detector in SHIPPED:
        detector_register(detector)
