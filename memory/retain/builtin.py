"""Handlers memory provides itself, for categories of the Observation contract that agents
post directly and that no analyzer owns: `fact` (a claim about a subject, in any
namespace). Analyzers' categories have their handlers in their own app (insight.handlers).
"""

from __future__ import annotations

from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    FactSpec,
    ObservationView,
    RelationSpec,
    actor_entity,
)
from memory.retain.registry import handler_register
from memory.retain.text import polarity


@handler_register("fact")
def fact(view: ObservationView) -> Extraction:
    """`{"subject": "Postgres", "text": "Postgres is reliable", "polarity"?}` -> the subject
    in the target namespace, the claim on it; the actors relate to the subject."""
    subject = view.text("subject")
    text = view.text("text")
    stated = view.payload.get("polarity")
    sign = {"positive": 1, "negative": -1}.get(str(stated), polarity(text))
    entities = [EntitySpec(ref="subject", namespace=view.target_namespace, name=subject,
                           principal=True, role="subject")]
    relations = []
    for index, actor in enumerate(view.actors):
        spec = actor_entity(actor, ref=f"actor{index}", namespace="world:person")
        entities.append(spec)
        relations.append(RelationSpec(spec.ref, "subject", "mentions"))
    return Extraction(
        entities=tuple(entities), relations=tuple(relations),
        facts=(FactSpec(entity="subject", claim=text, polarity=sign,
                        language=view.text("language")),),
    )
