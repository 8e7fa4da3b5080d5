"""`cortex decay curve`: the strength or weight day by day, and its crossing."""

from __future__ import annotations

import json
import math
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command


def _json(*args: str) -> dict[str, Any]:
    out = StringIO()
    call_command("decay", "curve", *args, "--json", stdout=out)
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


def test_entity_curve_json_shape_and_values() -> None:
    curve = _json("world:project", "--days", "60")
    assert set(curve) == {"params", "points", "crosses_at_day"}
    params = curve["params"]
    assert params["namespace"] == "world:project"
    assert (params["base"], params["half_life_days"], params["valence"]) == (0.5, 45, "neutral")
    for key in ("entity_model", "emotional_multiplier", "retrieval_boost", "reward_factor",
                "route_factor", "effective_half_life_days", "threshold", "pinned", "days"):
        assert key in params, key
    assert [p["day"] for p in curve["points"]] == list(range(61))
    assert curve["points"][0]["value"] == 0.5
    assert curve["points"][45]["value"] == pytest.approx(0.25, abs=1e-12)
    assert curve["crosses_at_day"] == pytest.approx(45 * math.log2(0.5 / 0.35), abs=1e-9)


def test_options_feed_the_formula() -> None:
    curve = _json("agent:*:rc", "--valence", "critical", "--retrievals", "3", "--pos", "3",
                  "--neg", "0", "--route", "fast_lane", "--days", "10")
    params = curve["params"]
    assert params["half_life_days"] == 14
    assert params["retrieval_boost"] == pytest.approx(1.2)
    assert params["reward_factor"] == 1.375
    assert params["effective_half_life_days"] == pytest.approx(14 * 1.375 * 1.5)
    assert curve["points"][0]["value"] == pytest.approx(0.5 * 1.2 * 2.0)
    # a concrete agent's namespace reads the same pattern
    assert _json("agent:lyra:rc", "--days", "1")["params"]["half_life_days"] == 14


def test_relation_curve_crosses_0_2_after_sigma_ln_5() -> None:
    curve = _json("--relation-type", "uses")
    assert curve["params"] == {"relation_type": "uses", "relation_class": "normal",
                               "sigma_days": 30.0, "threshold": 0.2,
                               "days": curve["params"]["days"]}
    assert curve["crosses_at_day"] == pytest.approx(30 * math.log(5), abs=1e-12)
    assert curve["points"][30]["value"] == pytest.approx(math.exp(-1))
    core = _json("--relation-type", "is_core_concept_of")
    assert core["crosses_at_day"] == pytest.approx(90 * math.log(5))
    assert core["params"]["days"] >= core["crosses_at_day"]  # the default runs past it


def test_text_output_prints_every_day_and_the_crossing() -> None:
    out = StringIO()
    call_command("decay", "curve", "world:topic", "--days", "20", stdout=out)
    text = out.getvalue()
    lines = [line for line in text.splitlines() if line[:5].strip().isdigit()]
    assert len(lines) == 21
    assert f"strength crosses 0.35 at day {10 * math.log2(0.5 / 0.35):.2f}" in text


@pytest.mark.parametrize(("args", "message"), [
    (("world:nowhere",), "not in the taxonomy"),
    (("world:project", "--relation-type", "uses"), "either"),
    ((), "either"),
    (("world:project", "--days", "-1"), "days"),
    (("world:project", "--valence", "angry"), "valence"),
])
def test_bad_arguments_are_refused_clearly(args: tuple[str, ...], message: str) -> None:
    with pytest.raises(CommandError, match=message):
        call_command("decay", "curve", *args, stdout=StringIO())
