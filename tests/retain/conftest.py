from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from memory.config import DecayConfig, config_get, config_swap
from memory.services.retain import RetainReport, retain_drain
from memory.services.taxonomy import taxonomy_sync


@pytest.fixture
def synced(db: None) -> None:
    taxonomy_sync()


@pytest.fixture
def config() -> DecayConfig:
    return config_get()


def retain_config(**changes: Any) -> DecayConfig:
    """The real config with some keys of `retain` (or of its sections) replaced."""
    config = config_get()
    section = config.retain
    for name in ("schema_fit", "dedup"):
        if name in changes and isinstance(changes[name], dict):
            changes[name] = dataclasses.replace(getattr(section, name), **changes[name])
    return dataclasses.replace(config, retain=dataclasses.replace(section, **changes))


@pytest.fixture
def swap() -> Iterator[Any]:
    contexts: list[Any] = []

    def use(config: DecayConfig) -> DecayConfig:
        context = config_swap(config)
        context.__enter__()
        contexts.append(context)
        return config

    yield use
    for context in reversed(contexts):
        context.__exit__(None, None, None)


def retain(*, embed: bool = False) -> RetainReport:
    return retain_drain(embed=embed)
