"""Free-text memories ("remember this", docs/memories.md) -> one `memory` observation each,
on the memories' grid cell, naming what the text mentions (memory.retain.mentions with the
words of insight/lexicons/mentions.yaml) and the claims it makes on them. The Retain Job
keeps the memory whole and links it to those entities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import draft, occurred_at, payload
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.text import excerpt, language_of
from insight.lexicons import SAFE_LOADER
from memory.config import config_get
from memory.retain.memories import SPEAKER
from memory.retain.mentions import MentionLexicon, claims_extract, mentions_extract
from memory.retain.text import normalize
from memory.services.memories import MEMORY_STREAM

CATEGORY = "memory"
MAX_MENTIONS = 200
_LEXICON = Path(__file__).resolve().parent.parent / "lexicons" / "mentions.yaml"


def _words(raw: Mapping[str, Any], name: str) -> frozenset[str]:
    return frozenset(normalize(str(word)) for word in raw.get(name) or ())


@cache
def mention_lexicon() -> MentionLexicon:
    raw = yaml.load(_LEXICON.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506
    sets = ("places", "organizations", "tools", "libraries", "org_suffixes", "titles",
            "person_cues", "place_cues", "weak_place_cues", "org_cues", "project_words",
            "common_words", "everyday_words", "claim_verbs", "claim_negations", "articles")
    return MentionLexicon(
        **{name: _words(raw, name) for name in sets},
        months={normalize(k): int(v) for k, v in (raw.get("months") or {}).items()},
        relative_days={normalize(k): int(v) for k, v in (raw.get("relative_days") or {}).items()},
    )


def author(event: Event) -> dict[str, str]:
    """Who stored it: the operator, an agent (api:<agent>), or a named source."""
    source = str(event.get("source") or "")
    if source.startswith("operator:") or source == "cli":
        return {"name": "operator", "key": "self:operator", "role": "author"}
    if source.startswith("api:"):
        name = source[4:]
        return {"name": name, "key": f"agent:{name}", "role": "author"}
    return {"name": str(event.get("actor") or source), "role": "author"}


def speaker(event: Event, poster: Mapping[str, str]) -> dict[str, str] | None:
    """Who said it, when it is not who posted it (a conversation's turn an agent posts): the
    memory names them too, since a speaker rarely says their own name ("I moved to Porto")."""
    name = " ".join(str(event.get("actor") or "").split())
    return {"name": name, "role": SPEAKER} if name and name != poster["name"] else None


def _observe(event: Event) -> ObservationDraft | None:
    body = payload(event)
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        return None
    lexicon = mention_lexicon()
    mentions = mentions_extract(text, lexicon=lexicon, reference=occurred_at(event))
    mentions = mentions[:MAX_MENTIONS]
    claims = claims_extract(text, mentions, lexicon=lexicon)
    language = language_of(text)
    sentiment, score = sentiment_of(text, language)
    poster = author(event)
    said_by = speaker(event, poster)
    return draft(
        event,
        category=CATEGORY,
        target_namespace=config_get().memories.namespace,
        topic=excerpt(text),
        actors=(poster, said_by) if said_by else (poster,),
        sentiment=sentiment,
        sentiment_score=score,
        payload={
            "event_id": str(event["id"]), "language": language,
            "project": str(event.get("project") or ""),
            "mentions": [{"kind": m.kind, "name": m.name[:300], "value": m.value}
                         for m in mentions],
            "claims": [{"mention": c.mention, "claim": c.claim, "polarity": c.polarity}
                       for c in claims],
        },
        key=f"memory:{event['id']}",
    )


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    drafts = []
    for event in events:
        if event.get("context") or event.get("type") != "memory":
            continue
        found = _observe(event)
        if found is not None:
            drafts.append(found)
    return drafts


ANALYZER = Analyzer(name="memories", sources=(MEMORY_STREAM,), analyze=analyze)
