"""`instruction` (agent:*:instruction) and `preference`: the rule or preference is the entity,
the claim (with its polarity, canonical English verb) is a fact on it, so that "always use
pnpm" and "n'utilise jamais pnpm" meet on one entity as opposite claims. The fact's scope
says where the claim holds: `global`, or `project:<name>` (the project it was said in)."""

from __future__ import annotations

from insight.handlers.common import actor_specs
from memory.retain.extraction import (
    EntitySpec,
    Extraction,
    FactSpec,
    ObservationView,
    RelationSpec,
)
from memory.retain.registry import handler_register


def _polarity(view: ObservationView) -> int:
    return -1 if view.text("polarity") == "negative" else 1


def fact_scope(view: ObservationView) -> str:
    """`global` or `project:<name>`, then what the sentence narrows it to, if anything
    (`project:cortex (in the integration tests)`)."""
    project = view.text("project")
    where = f"project:{project}" if view.text("applies_to") == "project" and project \
        else "global"
    qualifier = view.text("scope")
    return f"{where} ({qualifier})" if qualifier else where


def _fact(view: ObservationView, claim: str) -> FactSpec:
    return FactSpec(entity="claim", claim=claim, polarity=_polarity(view),
                    scope=fact_scope(view), language=view.text("language"))


@handler_register("instruction", "agent:*:instruction")
def instruction(view: ObservationView) -> Extraction:
    claim = view.text("claim")
    actors = actor_specs(view, default_namespace="world:person")
    rule = EntitySpec(ref="claim", namespace=view.target_namespace, name=claim, principal=True,
                      role="instruction")
    relations = []
    if "speaker" in actors:
        relations.append(RelationSpec("speaker", "claim", "instructed"))
    if "addressee" in actors:
        relations.append(RelationSpec("claim", "addressee", "governs"))
    return Extraction(entities=(rule, *actors.values()), relations=tuple(relations),
                      facts=(_fact(view, claim),))


@handler_register("preference", "self:*:preference")
@handler_register("preference")
def preference(view: ObservationView) -> Extraction:
    subject = view.text("claim") or view.text("subject")
    verb = view.text("verb", "prefer")
    actors = actor_specs(view, default_namespace="world:person")
    liked = EntitySpec(ref="claim", namespace=view.target_namespace, name=subject,
                       principal=True, role="preference")
    relations = [RelationSpec(ref, "claim", "prefers") for ref in actors if ref == "holder"]
    claim = subject if subject.startswith(f"{verb} ") else f"{verb} {subject}"
    return Extraction(entities=(liked, *actors.values()), relations=tuple(relations),
                      facts=(_fact(view, claim),))
