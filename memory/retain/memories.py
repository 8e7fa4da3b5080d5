"""The Retain Job's handler for `memory` observations (docs/memories.md): every mention is an
entity in the namespace of its kind (config `memories.kinds`; a name of no known kind is
looked for by alias among `memories.unknown_kinds`), the memory's project is one too, and a
sentence whose subject is a mention is a claim on it (conflict detection sees it). The
memory itself is written whole by the job (memory.services.memories_consolidate), linked to
these entities (refs `m<index>`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from memory.config import MemoriesSection, config_get
from memory.observation_schemas import PayloadField, observation_schema_register
from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    FactSpec,
    ObservationView,
    actor_entity,
    actors_by_role,
)
from memory.retain.mentions import UNKNOWN
from memory.retain.registry import handler_register

CATEGORY = "memory"
PROJECT_REF = "project"
AUTHOR_REF = "author"
SPEAKER_REF = "speaker"
SPEAKER = "speaker"  # the actor's role: who said it, when someone else posted it


observation_schema_register(CATEGORY, {
    "event_id": PayloadField(str, max_length=26),
    "mentions": PayloadField(list, required=False),
    "claims": PayloadField(list, required=False),
    "project": PayloadField(str, required=False, max_length=255),
    "language": PayloadField(str, required=False, max_length=16),
})


def mention_ref(index: int) -> str:
    return f"m{index}"


def _mention_spec(index: int, mention: Mapping[str, Any], section: MemoriesSection
                  ) -> EntitySpec | None:
    kind, name = str(mention.get("kind") or UNKNOWN), str(mention.get("name") or "").strip()
    if not name:
        return None
    unknown = tuple(section.kinds[k] for k in section.unknown_kinds)
    if kind == "date":
        return EntitySpec(ref=mention_ref(index), namespace=section.kinds["date"], name=name,
                          role="date")
    namespace = section.kinds.get(kind) or unknown[0]
    also_in = tuple(ns for ns in unknown if ns != namespace)
    return EntitySpec(ref=mention_ref(index), namespace=namespace, name=name,
                      role=kind if kind in section.kinds else UNKNOWN, also_in=also_in)


def _list(view: ObservationView, name: str) -> list[Mapping[str, Any]]:
    value = view.payload.get(name)
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) \
        else []


@handler_register(CATEGORY)
def memory(view: ObservationView) -> Extraction:
    section = config_get().memories
    entities: list[EntitySpec] = []
    for index, mention in enumerate(_list(view, "mentions")):
        spec = _mention_spec(index, mention, section)
        if spec is not None:
            entities.append(spec)
    project = view.text("project").strip()
    if project:
        entities.append(EntitySpec(ref=PROJECT_REF, namespace=section.kinds["project"],
                                   name=project, role="project"))
    for actor in view.actors[:1]:
        entities.append(actor_entity(actor, ref=AUTHOR_REF, namespace="world:person"))
    speaker = actors_by_role(view).get(SPEAKER)
    if speaker is not None:
        entities.append(actor_entity(speaker, ref=SPEAKER_REF, namespace="world:person"))
    refs = {spec.ref for spec in entities}
    facts = []
    for claim in _list(view, "claims"):
        ref = mention_ref(int(claim.get("mention", -1)))
        text = str(claim.get("claim") or "")
        if ref in refs and text and claim.get("polarity") in (1, -1):
            facts.append(FactSpec(entity=ref, claim=text, polarity=int(claim["polarity"]),
                                  language=view.text("language")))
    return Extraction(entities=tuple(entities), facts=tuple(facts))
