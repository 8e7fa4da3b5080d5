"""Speech acts between people on GitHub (gh exports): a pull request or issue speaks to its
repository's team, a review or comment to the item's author -> `interaction` on
`world:person`, so the profile also answers "expressive with person Y"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.text import slugify

from insight.analyzers import namespaces
from insight.analyzers.base import Analyzer, Event, ObservationDraft
from insight.analyzers.events import correlation, draft, observed, payload
from insight.analyzers.sentiment import sentiment_of
from insight.analyzers.speech_acts import classify
from insight.analyzers.text import excerpt, language_of

ITEMS = {"pull_request", "issue"}
REPLIES = {"review", "comment"}


def _person(login: str, role: str) -> dict[str, str]:
    return {"name": login, "key": f"world:person:{slugify(login)}", "role": role}


def _team(repo: str) -> str:
    return f"team:{repo}"


def _text(data: Mapping[str, Any]) -> str:
    parts = [data.get("title"), data.get("body")]
    return "\n".join(str(p) for p in parts if isinstance(p, str) and p.strip())


def _counterpart(event: Event, items: Mapping[str, Event]) -> str:
    repo = str(payload(event).get("repo") or event.get("project") or "")
    if event.get("subtype") in ITEMS:
        return _team(repo)
    item = items.get(correlation(event)["parent"])
    author = str(item.get("actor") or "") if item else ""
    return author if author and author != event.get("actor") else _team(repo)


def _observe(event: Event, counterpart: str) -> ObservationDraft | None:
    speaker, text = str(event.get("actor") or ""), _text(payload(event))
    if not speaker or not text:
        return None
    language = language_of(text)
    act, counts = classify(text, language)
    sentiment, score = sentiment_of(text, language)
    actors = [_person(speaker, "speaker")]
    if not counterpart.startswith("team:"):
        actors.append(_person(counterpart, "counterpart"))
    return draft(
        event,
        category="interaction",
        target_namespace=namespaces.PERSON,
        topic=excerpt(text),
        actors=tuple(actors),
        sentiment=sentiment,
        sentiment_score=score,
        payload={"act": act, "acts": counts, "speaker": speaker, "counterpart": counterpart,
                 "language": language, "chars": len(text), "kind": event.get("subtype")},
    )


def analyze(events: Sequence[Event]) -> list[ObservationDraft]:
    items = {str(e.get("source_id")): e for e in events if e.get("subtype") in ITEMS}
    drafts = []
    for event in observed(events):
        if event.get("subtype") in ITEMS | REPLIES:
            found = _observe(event, _counterpart(event, items))
            if found:
                drafts.append(found)
    return drafts


ANALYZER = Analyzer(name="gh_interactions", sources=("gh",), analyze=analyze)
