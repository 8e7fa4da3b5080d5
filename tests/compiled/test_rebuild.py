"""Rebuild: a faded entity's document comes back (the nightly rule leaves it alone), from the
command (one key, --all) and from the operator-only API."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.db import connection
from rest_framework.test import APIClient

from memory.models import CompiledTruth, Entity, EntityStatus
from memory.services.agents import agent_create
from memory.services.compiled_truth import COMPILED_LOCK_KEY
from memory.services.sleep_cycle import sleep_cycle_run
from tests.compiled.conftest import entity, fact, mention, raw_config

pytestmark = pytest.mark.django_db
NOW = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)
DAY = timedelta(days=1)


def _file(root: Path, target: Entity) -> Path:
    return root.joinpath(*target.namespace.path.split(":"), f"{target.slug}.md")


def _faded() -> Entity:
    """An entity compiled once when strong, then left to fade: when it is below the injection
    threshold and its strength keeps falling, the nightly step writes nothing for it."""
    threshold = raw_config()["thresholds"]["entity_strength"]
    target = entity(at=NOW, base=0.5, half_life_days=10.0, name="Old project")
    fact(target, claim="deploys with fabric", at=NOW)
    mention(target, at=NOW, topic="deployed the site")
    sleep_cycle_run(now=NOW)
    # 0.5 x 0.5^(t/10) < threshold from t = 10 log2(0.5 / threshold) days (5.1 d at 0.35).
    below = 10.0 * math.log2(0.5 / threshold)
    sleep_cycle_run(now=NOW + (below + 1) * DAY)  # crossed: the fading is written once
    assert CompiledTruth.objects.filter(entity=target).count() == 2
    later = NOW + (below + 30) * DAY  # fell by far more than 10 %, but faded all along
    sleep_cycle_run(now=later)
    assert CompiledTruth.objects.filter(entity=target).count() == 2
    return target


def test_rebuild_resurrects_a_faded_entitys_document(synced: None, compiled_dir: Path) -> None:
    target = _faded()
    _file(compiled_dir, target).unlink()
    call_command("rebuild", "compiled", target.key)
    current = CompiledTruth.objects.get(entity=target, superseded_by=None)
    assert current.version == 3 and current.reasons == ["rebuild"]
    assert current.trigger == "rebuild"
    text = _file(compiled_dir, target).read_text()
    assert text == current.markdown
    assert "faded" in text and "`deploys with fabric`" in text
    assert "`deployed the site`" in text  # the timeline, from mentions and raw events
    mentioned = CompiledTruth.objects.get(entity=target, version=1).markdown
    assert "## Provenance" in mentioned and "Raw events: `" in mentioned


def test_rebuild_all_and_a_quarantined_entity(synced: None, compiled_dir: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    active = entity(at=NOW)
    quarantined = entity(at=NOW, status=EntityStatus.QUARANTINED)
    merged = entity(at=NOW, status=EntityStatus.MERGED)
    sleep_cycle_run(now=NOW)
    assert CompiledTruth.objects.filter(entity=quarantined).count() == 0  # not nightly
    call_command("rebuild", "compiled", "--all")
    assert "compiled 2 of 2 entities; 2 file(s) written" in capsys.readouterr().out
    assert CompiledTruth.objects.filter(entity=active).count() == 2
    assert CompiledTruth.objects.filter(entity=quarantined).count() == 1
    assert not CompiledTruth.objects.filter(entity=merged).exists()
    with pytest.raises(CommandError, match="merged"):
        call_command("rebuild", "compiled", merged.key)
    with pytest.raises(CommandError, match="No entity"):
        call_command("rebuild", "compiled", "world:project:nothing-here")
    with pytest.raises(CommandError, match="KEY or --all"):
        call_command("rebuild", "compiled")


def _url(key: str) -> str:
    return f"/api/rebuild/compiled/{key}/"


def _token_client(*scopes: str, name: str) -> APIClient:
    _, token = agent_create(name=name, scopes=list(scopes))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def test_the_api_is_for_operators_only(synced: None, compiled_dir: Path) -> None:
    target = entity(at=NOW)
    assert APIClient().post(_url(target.key)).status_code in (401, 403)
    reader = _token_client("recall:read", "events:write", name="reader")
    refused = reader.post(_url(target.key))
    assert refused.status_code == 403 and "error" in refused.json()
    user = get_user_model().objects.create_user("someone", password="pw", is_staff=False)
    session = APIClient()
    session.force_login(user)
    assert session.post(_url(target.key)).status_code == 403
    assert not CompiledTruth.objects.exists()

    operator = _token_client("operator", name="ops")
    created = operator.post(_url(target.key))
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["key"], body["version"], body["pinned"]) == (target.key, 1, False)
    assert Path(body["path"]).read_text() == body["markdown"]

    staff = get_user_model().objects.create_user("op", password="pw", is_staff=True)
    admin_session = APIClient()
    admin_session.force_login(staff)
    again = admin_session.post(_url(target.key))
    assert again.status_code == 201 and again.json()["version"] == 2
    assert CompiledTruth.objects.get(entity=target, version=2).trigger == "api"

    missing = operator.post(_url("world:project:nobody"))
    assert missing.status_code == 404
    assert json.loads(missing.content)["error"]["code"] == "entity_not_found"



def test_the_api_answers_busy_while_another_writer_holds_the_lock(
    synced: None, compiled_dir: Path
) -> None:
    target = entity(at=NOW)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)
    with psycopg.connect(**params, autocommit=True) as other:
        other.execute("SELECT pg_advisory_lock(%s)", [COMPILED_LOCK_KEY])
        busy = _token_client("operator", name="ops").post(_url(target.key))
    assert busy.status_code == 409 and busy.json()["error"]["code"] == "busy"
    assert not CompiledTruth.objects.exists()
