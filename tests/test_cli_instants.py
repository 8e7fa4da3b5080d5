"""A command's time option (`recall --as-of`, `sleep --now`, `actuate detect --now`) takes
an ISO 8601 instant, in the configured time zone when it has no offset; a bad one is that
option's usage error, named as the operator typed it."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError

from memory.management.base import instant

pytestmark = pytest.mark.django_db


def test_an_instant_without_an_offset_is_in_the_configured_time_zone() -> None:
    assert instant("2026-03-01T09:30") == datetime(2026, 3, 1, 9, 30,
                                                    tzinfo=ZoneInfo(settings.TIME_ZONE))
    assert instant("2026-03-01T09:30+02:00") == datetime(2026, 3, 1, 7, 30, tzinfo=UTC)
    assert instant("2026-03-01").utcoffset() is not None
    with pytest.raises(argparse.ArgumentTypeError, match="'tomorrow' is not an ISO 8601"):
        instant("tomorrow")


@pytest.mark.parametrize(("command", "option"), [
    (["recall", "lisbon"], "--as-of"),
    (["sleep"], "--now"),
    (["actuate", "detect", "--dry-run"], "--now"),
])
def test_a_bad_instant_names_the_option_it_was_given_to(command: list[str], option: str) -> None:
    with pytest.raises(CommandError) as refused:
        call_command(*command, option, "notadate")
    assert f"argument {option}: 'notadate' is not an ISO 8601 date or time" in str(refused.value)

