"""The namespace tree: synced from the config, idempotent, never orphaning entities."""

from __future__ import annotations

import pytest

from memory.config import config_get
from memory.models import Entity, Namespace, Relation
from memory.services.relations import relation_reinforce
from memory.services.taxonomy import NamespaceUnknown, namespace_resolve, taxonomy_sync
from tests.decay import factories
from tests.decay.conftest import NOW, config_with, raw_config

pytestmark = pytest.mark.django_db


def _tree() -> dict[str, tuple[object, ...]]:
    return {
        ns.path: (ns.pk, ns.parent_id, ns.memory_type, ns.referent, ns.half_life_days,
                  ns.base_strength, ns.valence, ns.pinned, ns.in_config, ns.lft, ns.rght)
        for ns in Namespace.objects.all()
    }


def test_sync_seeds_the_domain_taxonomy_with_the_designs_half_lives() -> None:
    report = taxonomy_sync()
    assert "agent:claude-code:rc" in report.created
    expected = {
        "world:project": 45, "world:topic": 10, "self:operator:pattern": 30,
        "world:person": 90, "world:concept": 90, "agent:claude-code:instruction": 60,
        "agent:claude-code:rc": 14,
    }
    for path, half_life in expected.items():
        assert Namespace.objects.get(path=path).half_life_days == half_life, path
    for path in ("self:operator:preference", "self:operator:value", "self:operator:rhythm",
                 "agent:claude-code:skill", "agent:claude-code:persona",
                 "agent:claude-code:failure-mode", "agent:claude-code:relationship",
                 "world:organization", "world:contract", "world:event", "world:place",
                 "world:artifact"):
        assert Namespace.objects.filter(path=path).exists(), path
    assert not Namespace.objects.filter(path__contains="*").exists()


def test_every_node_is_a_grid_cell() -> None:
    taxonomy_sync()
    cells = set(Namespace.objects.values_list("memory_type", "referent"))
    assert ("procedural", "self") in cells  # operator patterns
    assert ("semantic", "other") in cells  # people
    assert ("episodic", "object") in cells  # dated world events
    assert ("semantic", "abstract") in cells  # concepts
    tree = Namespace.objects.get(path="agent:claude-code:rc")
    assert [a.path for a in tree.get_ancestors()] == ["agent", "agent:claude-code"]


def test_sync_twice_changes_nothing() -> None:
    taxonomy_sync()
    before = _tree()
    report = taxonomy_sync()
    assert not report.changed
    assert _tree() == before


def test_agent_patterns_apply_to_any_agent() -> None:
    taxonomy_sync()
    rc = namespace_resolve(path="agent:lyra:rc")
    assert rc.half_life_days == 14 and rc.pattern == "agent:*:rc"
    assert rc.parent is not None and rc.parent.path == "agent:lyra"
    assert namespace_resolve(path="agent:lyra:rc").pk == rc.pk
    # The next sync completes the new agent's subtree from the config.
    report = taxonomy_sync()
    assert "agent:lyra:skill" in report.created
    assert Namespace.objects.get(path="agent:lyra:relationship").referent == "other"


def test_resolving_a_path_the_taxonomy_does_not_describe_fails() -> None:
    with pytest.raises(NamespaceUnknown, match="world:nonsense"):
        namespace_resolve(path="world:nonsense")
    with pytest.raises(NamespaceUnknown, match="not a valid name"):
        namespace_resolve(path="agent:Bad Name:rc")
    assert not Namespace.objects.filter(path__startswith="world:nonsense").exists()


def test_a_node_removed_from_the_config_keeps_its_entities(swap_config: object) -> None:
    taxonomy_sync()
    contract = factories.entity(now=NOW, path="world:contract")
    raw = raw_config()
    del raw["taxonomy"]["nodes"]["world:contract"]
    report = taxonomy_sync(config=config_with(taxonomy=raw["taxonomy"]))
    assert report.retired == ["world:contract"]
    node = Namespace.objects.get(path="world:contract")
    assert node.in_config is False
    assert Entity.objects.get(pk=contract.pk).namespace_id == node.pk
    back = taxonomy_sync()
    assert back.updated == ["world:contract"]
    assert Namespace.objects.get(path="world:contract").in_config is True


def test_a_new_default_half_life_moves_the_entities_still_on_the_old_one() -> None:
    taxonomy_sync()
    on_default = factories.entity(now=NOW, path="world:project")
    overridden = factories.entity(now=NOW, path="world:project", half_life_days=12)
    raw = raw_config()
    raw["taxonomy"]["nodes"]["world:project"]["half_life_days"] = 20
    report = taxonomy_sync(config=config_with(taxonomy=raw["taxonomy"]), now=NOW)
    assert report.updated == ["world:project"] and report.entities_rescheduled == 1
    assert Entity.objects.get(pk=on_default.pk).half_life_days == 20
    assert Entity.objects.get(pk=overridden.pk).half_life_days == 12


def test_relations_follow_a_new_class_for_their_type() -> None:
    taxonomy_sync()
    a, b = factories.entity(now=NOW), factories.entity(now=NOW)
    relation_reinforce(edges=[(a.pk, b.pk, "mentions")], now=NOW)
    assert Relation.objects.get().relation_class == "weak"
    raw = raw_config()
    raw["graph"]["relation_types"]["mentions"] = "foundational"
    report = taxonomy_sync(config=config_with(graph=raw["graph"]))
    assert report.relations_reclassified == 1
    assert Relation.objects.get().relation_class == "foundational"
    assert taxonomy_sync(config=config_with(graph=raw["graph"])).relations_reclassified == 0


def test_the_taxonomy_command_syncs_and_shows(capsys: pytest.CaptureFixture[str]) -> None:
    from django.core.management import call_command

    call_command("taxonomy", "sync")
    call_command("taxonomy", "show")
    out = capsys.readouterr().out
    assert "created" in out and "rc" in out and "half-life 14 d" in out
    assert config_get().taxonomy.node_for("agent:anyone:rc") is not None
