"""The graph every fixture transcript leaves once ingested, analyzed and retained, as an
operator sees it: no key made of an id, a claim wherever the operator stated a rule in
words, and every entity traced back to what the transcripts hold (a project to a session's
directory, a file or a tool to its mention, a root cause to a failing tool's output, a rule
to a line where the operator states one, the rule's scope to that session's project).

The transcripts are read from ../shared/fixtures (skipped when absent); what is expected is
found here by a scan of the raw JSONL of its own, not by the analyzers, and nothing of it
is copied into the project."""

from __future__ import annotations

import json
import re
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


# What a root cause's name hides (memory: the signature's normalisation) and joins.
PLACEHOLDER = re.compile(r"<n>|<path>|<hex>| \| ")
INTERRUPTED = "[request interrupted by user"
RULE_WORDS = {"never", "always", "use", "not", "don", "about"}
REJECTED = "the user doesn't want to proceed"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _flat(text: str) -> str:
    return " ".join(text.casefold().split())


class Raw:
    """What the transcripts hold, scanned here: every string (casefolded, spaces joined),
    the tools called, each session directory's name, and each line's directory by uuid."""

    def __init__(self, root: Path) -> None:
        texts: list[str] = []
        self.tools: set[str] = set()
        self.places: dict[str, str] = {}
        self.said: dict[str, str] = {}  # uuid -> what the operator typed in a main session
        for path in sorted(root.rglob("*.jsonl")):
            for record in _records(path):
                texts.extend(_strings(record))
                if isinstance(record.get("cwd"), str) and isinstance(record.get("uuid"), str):
                    self.places[record["uuid"]] = Path(record["cwd"]).name
                if record.get("type") == "user" and not record.get("isSidechain") \
                        and isinstance(record.get("uuid"), str):
                    self.said[record["uuid"]] = _flat(" ".join(
                        text for _, text in _texts(record)))
                message = record.get("message")
                content = message.get("content") if isinstance(message, dict) else None
                for block in content if isinstance(content, list) else []:
                    if isinstance(block, dict) and block.get("type") == "tool_use":
                        self.tools.add(str(block.get("name")))
        self.text = _flat("\n".join(texts))
        self.projects = set(self.places.values())

    def holds(self, text: str) -> bool:
        return _flat(text) in self.text


def _names(namespace: str) -> list[str]:
    return list(Entity.objects.filter(namespace__path=namespace)
                .exclude(status=EntityStatus.MERGED).values_list("display_name", flat=True))


def test_every_entity_is_traced_to_the_transcripts(graph: Path) -> None:
    raw = Raw(graph)
    projects = _names("world:project")
    assert projects and set(projects) <= raw.projects
    for name in _names("world:artifact"):
        project, _, rest = name.partition("/")
        assert raw.holds(rest if project in projects else name.removeprefix("~/")), name
    for name in _names("agent:claude-code:skill"):
        tool, _, rule = name.partition("(")
        if tool.startswith("mode:"):
            assert raw.holds(tool.removeprefix("mode:")), name
            continue
        assert tool in raw.tools, name
        assert raw.holds(rule.removesuffix(":*)").removesuffix(")").partition(":")[2]
                         if rule.startswith("domain:") else rule.removesuffix(":*)")), name
    causes = _names("agent:claude-code:rc")
    assert causes
    for name in causes:
        tool, _, output = name.partition(": ")
        assert tool in raw.tools, name
        pieces = [p.strip() for p in PLACEHOLDER.split(output) if len(p.strip()) >= 6]
        assert all(raw.holds(p) for p in pieces), name
    modes = set(_names("agent:claude-code:failure-mode"))
    assert modes <= {"interrupt", "rejection", "negation"}
    assert ("interrupt" in modes) == (INTERRUPTED in raw.text)
    assert ("rejection" in modes) == (REJECTED in raw.text)


def test_every_rule_is_one_the_operator_stated_where_it_holds(graph: Path) -> None:
    """Each rule's claim comes from a line the operator typed in a main session that names
    what the rule is about, and holds in that session's project."""
    raw = Raw(graph)
    uuids = dict(MemoryEvent.objects.values_list("id", "source_id"))
    facts = list(Fact.objects.filter(entity__namespace__path="agent:claude-code:instruction")
                 .values_list("entity__key", "claim", "event_ids", "scope"))
    assert {key for key, _, _, _ in facts} == set(Entity.objects.filter(
        namespace__path="agent:claude-code:instruction").values_list("key", flat=True))
    for key, claim, events, scope in facts:
        stated = [uuids[e] for e in events if uuids.get(e) in raw.said]
        assert stated, f"{key}: no line the operator typed"
        words = set(re.findall(r"\w{3,}", claim.casefold())) - RULE_WORDS
        assert any(w in raw.said[uuid] for uuid in stated for w in words), (key, claim)
        places = {raw.places[uuid] for uuid in stated}
        assert scope.removeprefix("project:").split(" (")[0].split(", ")[0] in places, key
