from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from memory.config import DecayConfig, config_get
from memory.services.retain import RetainReport, retain_drain
from memory.services.taxonomy import taxonomy_sync


@pytest.fixture
def synced(db: None) -> None:
    taxonomy_sync()


def retain_config(**changes: Any) -> DecayConfig:
    """The real config with some keys of `retain` (or of its sections) replaced."""
    config = config_get()
    section = config.retain
    for name in ("schema_fit", "dedup"):
        if name in changes and isinstance(changes[name], dict):
            changes[name] = dataclasses.replace(getattr(section, name), **changes[name])
    return dataclasses.replace(config, retain=dataclasses.replace(section, **changes))


def retain(*, embed: bool = False) -> RetainReport:
    return retain_drain(embed=embed)
