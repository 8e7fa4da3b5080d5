"""The loader fails loudly naming the key; every number of the config drives behaviour."""

from __future__ import annotations

import math
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memory.config import ConfigError, DecayConfig, config_get, config_load, config_parse
from memory.decay.formulas import EntityState, entity_crossing_days, relation_crossing_days
from memory.models import Relation
from memory.selectors.entities import STRENGTH_NOW, entity_with_strength
from memory.selectors.relations import WEIGHT_NOW, relation_with_weight
from memory.services.entities import entity_state
from memory.services.taxonomy import namespace_resolve, taxonomy_sync
from tests.decay import factories
from tests.decay.conftest import NOW, config_with, raw_config

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("mutate", "key"), [
    (lambda r: r["graph"]["classes"].update(normal="thirty"), "graph.classes.normal"),
    (lambda r: r["thresholds"].update(entity_strenght=0.3), "thresholds.entity_strenght"),
    (lambda r: r["thresholds"].pop("relation_weight"), "thresholds.relation_weight"),
    (lambda r: r.update(entity_model="fancy"), "entity_model"),
    (lambda r: r["entity"]["emotional_multipliers"].pop("critical"),
     "entity.emotional_multipliers"),
    (lambda r: r["entity"]["emotional_multipliers"].update(neutral=-1),
     "entity.emotional_multipliers.neutral"),
    (lambda r: r["graph"]["relation_types"].update(knows="strong"), "graph.relation_types.knows"),
    (lambda r: r["routes"]["half_life_factors"].update(fast_lane=True),
     "routes.half_life_factors.fast_lane"),
    (lambda r: r["taxonomy"]["nodes"]["world:project"].update(half_life_days=0),
     "taxonomy.nodes.world:project.half_life_days"),
    (lambda r: r["taxonomy"]["nodes"].update({"world:x:y": {}}), "taxonomy.nodes.world:x:y"),
    (lambda r: r["recall"]["weights"].update(graf=1.0), "recall.weights"),
    (lambda r: r["taxonomy"]["nodes"]["world:place"].update(valence="sad"),
     "taxonomy.nodes.world:place.valence"),
    (lambda r: r["taxonomy"]["instances"].update({"world": ["x"]}), "taxonomy.instances.world"),
    (lambda r: r.update(sleep_cycle={"at": "03:00"}), "sleep_cycle"),
])
def test_a_bad_value_fails_loudly_naming_its_key(mutate: Any, key: str) -> None:
    raw = raw_config()
    mutate(raw)
    with pytest.raises(ConfigError, match=re.escape(key)):
        config_parse(raw)


def test_a_missing_or_broken_file_names_itself(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        config_load(tmp_path / "nope.yaml")
    broken = tmp_path / "broken.yaml"
    broken.write_text("entity_model: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        config_load(broken)


def test_the_shipped_config_parses_and_is_read_once() -> None:
    assert config_get() is config_get()
    assert config_get().digest == config_parse(raw_config()).digest


# Each case: a key, a new value, and what must follow from it, in Python and in SQL.
SWAPS = [
    ("entity.emotional_multipliers.critical", 3.0,
     {"valence": "critical"}, 0.0, 0.5 * 3.0),
    ("entity.reward_weight", 0.25,
     {"pos": 3}, 30 * (1 + 0.25 * 0.75), 0.25),
    ("entity.retrieval_weight", 0.2,
     {"retrieval_count": 3}, 0.0, 0.5 * 1.4),
    ("routes.half_life_factors.dark_matter", 0.25,
     {"route": "dark_matter"}, 7.5, 0.25),
    ("routes.half_life_factors.fast_lane", 2.0,
     {"route": "fast_lane"}, 60.0, 0.25),
]


def _set(raw: dict[str, Any], dotted: str, value: Any) -> None:
    *path, last = dotted.split(".")
    for part in path:
        raw = raw[part]
    raw[last] = value


def _swapped(dotted: str, value: Any) -> DecayConfig:
    raw = raw_config()
    _set(raw, dotted, value)
    return config_parse(raw)


@pytest.mark.django_db
@pytest.mark.parametrize(("key", "value", "fields", "days", "expected"), SWAPS)
def test_a_swapped_number_changes_strength_in_python_and_sql(
    swap_config: Any, key: str, value: float, fields: dict[str, Any], days: float,
    expected: float,
) -> None:
    taxonomy_sync()
    entity = factories.entity(now=NOW - timedelta(days=days), base=0.5, half_life_days=30)
    for name, field_value in fields.items():
        setattr(entity, name, field_value)
    entity.save()

    def both() -> tuple[float, float]:
        sql = entity_with_strength(now=NOW).get(pk=entity.pk)
        python = factories_strength(entity, config_get())
        return python, getattr(sql, STRENGTH_NOW)

    before = both()
    swap_config(_swapped(key, value))
    python, sql = both()
    assert python == pytest.approx(expected, abs=1e-12)
    assert sql == pytest.approx(expected, abs=1e-12)
    assert before[0] != pytest.approx(expected, abs=1e-6)


def factories_strength(entity: Any, config: DecayConfig) -> float:
    from memory.decay.formulas import entity_strength

    return entity_strength(entity_state(entity), last_reinforced_at=entity.last_reinforced_at,
                           now=NOW, config=config)


@pytest.mark.django_db
def test_a_swapped_sigma_changes_relation_weight_in_sql(swap_config: Any) -> None:
    taxonomy_sync()
    a, b = factories.entity(now=NOW), factories.entity(now=NOW)
    factories.relation(a, b, at=NOW - timedelta(days=10))
    swap_config(_swapped("graph.classes.normal", 10))
    weight = getattr(relation_with_weight(now=NOW).get(), WEIGHT_NOW)
    assert weight == pytest.approx(math.exp(-1), abs=1e-12)
    assert Relation.objects.count() == 1


def test_swapped_thresholds_move_the_crossings() -> None:
    neutral = EntityState(base=0.5, half_life_days=30)
    assert entity_crossing_days(neutral, config=_swapped("thresholds.entity_strength", 0.25)) \
        == pytest.approx(30)
    assert relation_crossing_days(
        relation_class="normal", config=_swapped("thresholds.relation_weight", math.exp(-2))
    ) == pytest.approx(60)


def test_the_simplified_access_increment_comes_from_the_config() -> None:
    state = EntityState(base=0.5, half_life_days=30, retrieval_count=2)
    config = config_with(entity_model="simplified")
    raw = raw_config()
    raw["entity_model"] = "simplified"
    raw["entity"]["simplified_reinforcement_per_access"] = 0.5
    from memory.decay.formulas import strength_after

    assert strength_after(state, dt_days=0, config=config) == pytest.approx(0.8)
    assert strength_after(state, dt_days=0, config=config_parse(raw)) == pytest.approx(1.0)


@pytest.mark.django_db
def test_a_swapped_namespace_half_life_reaches_new_entities(swap_config: Any) -> None:
    swap_config(_swapped("taxonomy.nodes.world:project.half_life_days", 20))
    taxonomy_sync()
    assert namespace_resolve(path="world:project").half_life_days == 20
    assert factories.entity(now=NOW).half_life_days == 20


# Values of the config that the decay code must never spell out itself.
CONFIG_LITERALS = ("0.35", "0.2", "0.1", "1.3", "1.5", "2.0", "0.3", "0.7", "1.375")
DECAY_CODE = ["memory/decay", "memory/sleep", "memory/services/entities.py",
              "memory/services/relations.py", "memory/services/taxonomy.py",
              "memory/services/sleep_cycle.py", "memory/selectors/entities.py",
              "memory/selectors/relations.py"]


def test_no_config_number_is_spelled_out_in_the_decay_code() -> None:
    files = [p for entry in DECAY_CODE for p in
             ((ROOT / entry).rglob("*.py") if (ROOT / entry).is_dir() else [ROOT / entry])]
    pattern = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, CONFIG_LITERALS)) + r")(?![\d])")
    found = []
    for path in files:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#", 1)[0]
            if '"""' in line or line.strip().startswith(("-", "`")):
                continue
            if pattern.search(code):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, found
