from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml

from memory.config import DecayConfig, config_get, config_parse, config_path, config_swap

NOW = datetime(2025, 6, 1, 3, 0, tzinfo=UTC)


@pytest.fixture
def config() -> DecayConfig:
    return config_get()


def raw_config() -> dict[str, Any]:
    return yaml.safe_load(config_path().read_text())


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


@pytest.fixture
def swap_config() -> Iterator[Any]:
    stack: list[Any] = []

    def swap(cfg: DecayConfig) -> DecayConfig:
        ctx = config_swap(cfg)
        ctx.__enter__()
        stack.append(ctx)
        return cfg

    yield swap
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def replace(cfg: DecayConfig, **changes: Any) -> DecayConfig:
    return dataclasses.replace(cfg, **changes)
