"""`instruction` (agent:*:instruction) and `preference`: the rule or preference is the entity,
the claim is a fact on it. An instruction's entity is keyed by its action in canonical
English ("use pnpm") and named as the operator stated the rule, polarity included ("never
use pnpm"); its fact's claim is the rule in those words, so that "always use pnpm" and
"n'utilise jamais pnpm" meet on one entity as opposite claims (negations are no content
words) and a reader of a name or a claim alone reads the polarity. The fact's scope says
where the claim holds: `global`, or `project:<name>` (the project it was said in; "in this
project" binds it there: memory.retain.extraction)."""

from __future__ import annotations

from insight.handlers.common import actor_specs
from memory.retain.extraction import (
    HERE,
    EntitySpec,
    Extraction,
    FactSpec,
    ObservationView,
    RelationSpec,
    scope_of,
    slug_of,
)
from memory.retain.registry import handler_register


def _polarity(view: ObservationView) -> int:
    return -1 if view.text("polarity") == "negative" else 1


def fact_scope(view: ObservationView) -> str:
    """`global` or `project:<name>`, then what the sentence narrows it to, if anything
    (`project:cortex (in the integration tests)`), and whether it said "in this project"."""
    project = view.text("project")
    applies_to = view.text("applies_to")
    here = applies_to == "this_project" and bool(project)
    projects = (project,) if project and (here or applies_to == "project") else ()
    return scope_of(projects=projects, qualifiers=(view.text("scope"), HERE if here else ""))


def _fact(view: ObservationView, claim: str) -> FactSpec:
    return FactSpec(entity="claim", claim=claim, polarity=_polarity(view),
                    scope=fact_scope(view), language=view.text("language"))


def rule_stated(view: ObservationView, action: str) -> str:
    """The rule as the analyzer named it; for an observation from before it did, the action
    with its polarity."""
    if rule := view.text("rule"):
        return rule
    return f"never {action}" if _polarity(view) < 0 else action


@handler_register("instruction", "agent:*:instruction")
def instruction(view: ObservationView) -> Extraction:
    action = view.text("claim")
    stated = rule_stated(view, action)
    actors = actor_specs(view, default_namespace="world:person")
    rule = EntitySpec(ref="claim", namespace=view.target_namespace, name=stated,
                      key=f"{view.target_namespace}:{slug_of(action)}", aliases=(action,),
                      principal=True, role="instruction")
    relations = []
    if "speaker" in actors:
        relations.append(RelationSpec("speaker", "claim", "instructed"))
    if "addressee" in actors:
        relations.append(RelationSpec("claim", "addressee", "governs"))
    return Extraction(entities=(rule, *actors.values()), relations=tuple(relations),
                      facts=(_fact(view, stated),))


@handler_register("preference", "self:*:preference")
@handler_register("preference")
def preference(view: ObservationView) -> Extraction:
    subject = view.text("claim") or view.text("subject")
    verb = view.text("verb", "prefer")
    actors = actor_specs(view, default_namespace="world:person")
    liked = EntitySpec(ref="claim", namespace=view.target_namespace, name=subject,
                       principal=True, role="preference")
    relations = [RelationSpec(ref, "claim", "prefers") for ref in actors if ref == "holder"]
    claim = view.text("rule") or (subject if subject.startswith(f"{verb} ")
                                  else f"{verb} {subject}")
    return Extraction(entities=(liked, *actors.values()), relations=tuple(relations),
                      facts=(_fact(view, claim),))
