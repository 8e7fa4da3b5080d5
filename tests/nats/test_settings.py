"""The bus's settings: `nats:` in config/decay.yaml validated like every section, and
`cortex nats` refusing to start with NATS off."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from memory.config import ConfigError, config_parse, config_path, config_read_raw


@pytest.mark.parametrize(("key", "value", "named"), [
    ("prefix", "has space", "nats.prefix"),
    ("prefix", "trailing.", "nats.prefix"),
    ("stream", "A.B", "nats.stream"),
    ("drain_batch", 0, "nats.drain_batch"),
    ("publish_timeout_seconds", 0, "nats.publish_timeout_seconds"),
    ("colour", "blue", "nats.colour"),
])
def test_a_wrong_nats_setting_stops_cortex_naming_the_key(key: str, value: Any,
                                                          named: str) -> None:
    raw = copy.deepcopy(config_read_raw(config_path()))
    raw["nats"][key] = value
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        config_parse(raw)


def test_the_shipped_settings_parse() -> None:
    section = config_parse(config_read_raw(config_path())).nats
    assert (section.prefix, section.stream) == ("cortex", "CORTEX_OBSERVATIONS")


def test_cortex_nats_needs_nats_url(settings: Any) -> None:
    settings.NATS_URL = ""
    with pytest.raises(CommandError, match="NATS_URL"):
        call_command("nats")
