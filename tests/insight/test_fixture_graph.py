"""The graph every fixture transcript leaves once ingested, analyzed and retained, as an
operator sees it: no key made of an id, a claim wherever the operator stated a rule in
words, and the entities per namespace that a person reviewed and accepted
(expected_fixture_entities.json; `CORTEX_REGENERATE_EXPECTED=1` rewrites it for review).

The rules are found here by a scan of the raw JSONL of its own, not by the analyzers."""

from __future__ import annotations

import json
import os
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from insight.producers.base import NoProgress
from insight.producers.claude_code import ClaudeCodeProducer
from insight.services.analysis import analysis_drain
from memory.models import Entity, EntityStatus, Fact
from memory.models.events import MemoryEvent
from memory.services.retain import retain_drain

pytestmark = [pytest.mark.django_db, pytest.mark.fixtures]

EXPECTED = Path(__file__).with_name("expected_fixture_entities.json")
REGENERATE = os.environ.get("CORTEX_REGENERATE_EXPECTED") == "1"

# An id, whatever it names: a uuid, a run of 8+ hex digits with a digit in it, an
# Anthropic id (toolu_..., req_..., msg_...).
ID_SHAPED = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-|(?<![a-z0-9])(?=[a-f]*\d)[0-9a-f]{8,}(?![a-z0-9])"
    r"|(?:toolu|req|msg)_[0-9a-z]{6}", re.I)
# A rule said in words: a sentence (or a clause after "but") that starts with one of these.
RULE_START = re.compile(
    r"^(?:(?:please|also|and|so|ok|okay|no|non|but|mais|et)[,]?\s+)*"
    r"(?:always|never|don't|do not|avoid|prefer\b|i prefer|i don't want|i do not want"
    r"|use \S+ (?:instead of|rather than)|toujours|jamais|n'utilise|ne \w+ jamais|évite"
    r"|je préfère|je ne veux pas|utilise \S+ (?:plutôt que|au lieu de))", re.I)
REASON = re.compile(r"(?:reason for the rejection:|the user said:)\s*(\S.*)", re.I | re.S)
INJECTED = ("<", "caveat:", "[request interrupted", "this session is being continued")


def _records(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            yield record


def _texts(record: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """("prompt" | "reason", text) of a main-session user line."""
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            yield "prompt", block["text"]
        elif block.get("type") == "tool_result":
            value = block.get("content")
            text = value if isinstance(value, str) else " ".join(
                part.get("text", "") for part in value or [] if isinstance(part, dict))
            if found := REASON.search(text):
                yield "reason", found.group(1)


def _states_a_rule(kind: str, text: str) -> bool:
    if kind == "reason":
        return True
    if text.strip().casefold().startswith(INJECTED):
        return False
    parts = re.split(r"[.!?\n]+|,?\s+but\s+|;", text.replace("\u2019", "'"))
    return any(RULE_START.match(part.strip()) for part in parts)


def spoken_rules(root: Path) -> dict[str, str]:
    """uuid -> text of every line where the operator states a rule."""
    found = {}
    for path in sorted(root.rglob("*.jsonl")):
        for record in _records(path):
            if record.get("type") != "user" or record.get("isSidechain") or \
                    record.get("agentId") or record.get("isMeta"):
                continue
            for kind, text in _texts(record):
                if _states_a_rule(kind, text) and isinstance(record.get("uuid"), str):
                    found[record["uuid"]] = text
    return found


@pytest.fixture
def graph(shared_fixtures: Path) -> Path:
    root = shared_fixtures / "claude-code"
    ClaudeCodeProducer(roots=[root]).run(progress=NoProgress())
    totals = analysis_drain()
    assert (totals.rejected, totals.held_back) == (0, [])
    retain_drain()
    return root


def _entities() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = defaultdict(dict)
    rows = Entity.objects.exclude(status=EntityStatus.MERGED).values_list(
        "namespace__path", "key", "display_name")
    for namespace, key, name in rows:
        found[str(namespace)][key] = name
    return {namespace: dict(sorted(keys.items())) for namespace, keys in sorted(found.items())}


def _facts() -> list[list[Any]]:
    return sorted([key, claim, polarity, scope] for key, claim, polarity, scope in
                  Fact.objects.values_list("entity__key", "claim", "polarity", "scope"))


def test_no_entity_is_keyed_by_an_id(graph: Path) -> None:
    keys = list(Entity.objects.values_list("key", flat=True))
    assert keys
    assert [key for key in keys if ID_SHAPED.search(key.rpartition(":")[2])] == []


def test_every_rule_the_operator_states_becomes_a_claim(graph: Path) -> None:
    rules = spoken_rules(graph)
    assert rules, "the fixtures hold spoken rules (a rejection's reason at least)"
    event_ids = dict(MemoryEvent.objects.filter(source_id__in=list(rules))
                     .values_list("source_id", "id"))
    claimed = {event for ids in Fact.objects.values_list("event_ids", flat=True)
               for event in ids}
    missing = {rules[uuid] for uuid, event in event_ids.items() if event not in claimed}
    assert missing == set()
    assert set(event_ids) == set(rules)


def test_the_entities_are_the_ones_a_person_accepted(graph: Path) -> None:
    seen = {"entities": _entities(), "facts": _facts()}
    if REGENERATE:
        EXPECTED.write_text(json.dumps(seen, indent=1, ensure_ascii=False) + "\n")
        pytest.skip(f"{EXPECTED.name} rewritten: review it by eye")
    expected = json.loads(EXPECTED.read_text())
    assert seen["entities"] == expected["entities"]
    assert seen["facts"] == expected["facts"]
