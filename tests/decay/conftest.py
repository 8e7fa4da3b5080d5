from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import yaml

from memory.config import DecayConfig, config_parse, config_path

NOW = datetime(2025, 6, 1, 3, 0, tzinfo=UTC)


def raw_config() -> dict[str, Any]:
    raw: dict[str, Any] = yaml.safe_load(config_path().read_text())
    return raw


def config_with(**section_changes: Any) -> DecayConfig:
    """The real config with some keys of some sections replaced, e.g.
    config_with(thresholds={"entity_strength": 0.5})."""
    raw = raw_config()
    for section, changes in section_changes.items():
        if isinstance(raw[section], dict):
            raw[section].update(changes)
        else:
            raw[section] = changes
    return config_parse(raw)


def replace(cfg: DecayConfig, **changes: Any) -> DecayConfig:
    return dataclasses.replace(cfg, **changes)
