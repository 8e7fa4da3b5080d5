"""What a handler sees (an `ObservationView`) and what it returns (an `Extraction`).

A handler is a pure function of one observation: it names the entities the observation is
about (by namespace and name, or by key), the relations between them and the claims made
on them. Resolving names to entities, deduplicating, scoring, detecting conflicts, writing
and reinforcing are the job's generic steps (memory.services.retain).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import Any

from memory.retain.text import strip_accents

MAX_SLUG = 120
# Long names end in a short digest: shorter than an id (see `id_shaped`).
DIGEST_CHARS = 6
_NOT_SLUG = re.compile(r"[^a-z0-9._-]+")
# What correlation ids look like once slugged: uuids, ULIDs, runs of hex with a digit (commit
# and agent ids; not dates), Anthropic's prefixed ids (toolu_, req_, msg_), long mixed tokens.
_ID_TOKENS = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|(?:^|(?<=[-_.:]))(?:srvtoolu|toolu|req|msg|call|chatcmpl)_[0-9a-z]{6,}"
    r"|(?<![0-9a-z])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{8,}(?![0-9a-z])"
    r"|(?<![0-9a-z])(?=[0-9a-z]*[0-9])(?=[0-9a-z]*[a-z])[0-9a-z]{20,}(?![0-9a-z])"
)


@dataclass(frozen=True)
class ObservationView:
    """The fields of an Observation a handler may read."""

    id: str
    dedup_key: str
    source: str
    timestamp: datetime
    category: str
    target_namespace: str
    topic: str = ""
    actors: tuple[Mapping[str, str], ...] = ()
    sentiment: str = "neutral"
    sentiment_score: float = 0.0
    payload: Mapping[str, Any] = field(default_factory=dict)
    event_ids: tuple[str, ...] = ()

    def text(self, name: str, default: str = "") -> str:
        value = self.payload.get(name)
        return value if isinstance(value, str) else default


@dataclass(frozen=True)
class EntitySpec:
    """An entity the observation is about. `ref` names it inside the extraction.

    With a `key` (`namespace:slug`) it is that entity; otherwise it is found by name (or an
    alias) in `namespace`, or created there with `slug_of(name)`. `actor`: one of the
    observation's actors (schema_fit counts how many are already known). `principal`: what
    the observation is about; a new one takes the observation's sentiment as its valence.
    """

    ref: str
    namespace: str
    name: str
    key: str = ""
    aliases: tuple[str, ...] = ()
    role: str = ""
    actor: bool = False
    principal: bool = False
    # Other namespaces where the name may already be known (by alias), looked in, in order,
    # when it is not found in `namespace` (a memory's name of no known kind).
    also_in: tuple[str, ...] = ()

    @property
    def full_key(self) -> str:
        return self.key or f"{self.namespace}:{slug_of(self.name)}"


@dataclass(frozen=True)
class RelationSpec:
    source: str
    target: str
    type: str


@dataclass(frozen=True)
class FactSpec:
    """A claim on an entity; polarity +1 (affirmative) or -1 (negated)."""

    entity: str
    claim: str
    polarity: int
    scope: str = ""
    language: str = ""


@dataclass(frozen=True)
class Extraction:
    entities: tuple[EntitySpec, ...] = ()
    relations: tuple[RelationSpec, ...] = ()
    facts: tuple[FactSpec, ...] = ()

    def check(self) -> None:
        """A handler's bug, named: a relation or fact on an entity it did not declare."""
        refs = {e.ref for e in self.entities}
        if len(refs) != len(self.entities):
            raise ValueError("two entities of one extraction share a ref")
        for rel in self.relations:
            if rel.source not in refs or rel.target not in refs:
                raise ValueError(f"relation {rel} names an undeclared entity")
        for fact in self.facts:
            if fact.entity not in refs:
                raise ValueError(f"fact {fact.claim!r} is on an undeclared entity")
            if fact.polarity not in (1, -1):
                raise ValueError(f"fact {fact.claim!r} has polarity {fact.polarity}")

    def without_ids(self) -> Extraction:
        """The extraction less any entity keyed by a correlation id (and what hangs on it):
        the Retain Job's last guard, the analyzers name no such entity in the first place."""
        refused = {e.ref for e in self.entities if id_shaped(split_key(e.full_key)[1])}
        if not refused:
            return self
        return Extraction(
            entities=tuple(e for e in self.entities if e.ref not in refused),
            relations=tuple(r for r in self.relations
                            if r.source not in refused and r.target not in refused),
            facts=tuple(f for f in self.facts if f.entity not in refused),
        )


@lru_cache(maxsize=65536)
def slug_of(name: str) -> str:
    """A key-safe slug: lowercase ascii, digits, `.`, `_`, `-`; long names end in a hash."""
    flat = _NOT_SLUG.sub("-", strip_accents(name.casefold())).strip("-.")
    if len(flat) <= MAX_SLUG and flat:
        return flat
    digest = hashlib.sha256(name.encode()).hexdigest()[:DIGEST_CHARS]
    if not flat:
        return f"x-{digest}"
    return f"{flat[:MAX_SLUG - DIGEST_CHARS - 1].rstrip('-.')}-{digest}"


@lru_cache(maxsize=65536)
def id_shaped(slug: str) -> bool:
    """A slug that holds a correlation id (a session, subagent, tool use, request or message
    id): such a thing is no entity, whatever a handler says."""
    return bool(_ID_TOKENS.search(slug.casefold()))


# A fact's scope: "" (unscoped), `global` or `project:<a>[, project:<b>...]`, then what the
# sentence narrowed it to in parentheses (`project:cortex (in the integration tests)`). A
# rule said "in this project" carries HERE among its qualifiers: it holds in the projects it
# was said in, and only there.
GLOBAL = "global"
PROJECT_PREFIX = "project:"
HERE = "in this project"
_PROJECTS_JOIN = ", "
_QUALIFIERS_JOIN = "; "
SCOPE_CHARS = 300


def scope_split(scope: str) -> tuple[str, str]:
    """(`where`, qualifier): `project:cortex (in the tests)` -> (`project:cortex`, `in the
    tests`)."""
    where, _, rest = scope.partition(" (")
    return where, rest[:-1] if rest.endswith(")") else rest


def scope_projects(scope: str) -> tuple[str, ...]:
    """The projects a scope names (none for `global` or no scope)."""
    where, _ = scope_split(scope)
    if not where.startswith(PROJECT_PREFIX):
        return ()
    return tuple(part.removeprefix(PROJECT_PREFIX) for part in where.split(_PROJECTS_JOIN))


def scope_of(*, projects: tuple[str, ...] = (), qualifiers: tuple[str, ...] = ()) -> str:
    """The scope string of these projects (none: global) and qualifiers."""
    where = _PROJECTS_JOIN.join(f"{PROJECT_PREFIX}{p}" for p in projects) if projects \
        else GLOBAL
    said = _QUALIFIERS_JOIN.join(q for q in qualifiers if q)
    return f"{where} ({said})" if said else where


def scope_here(scope: str) -> bool:
    """Whether the rule was said for the project it was said in, and it alone."""
    return HERE in scope_split(scope)[1].split(_QUALIFIERS_JOIN)


def scope_holds_in(scope: str, project: str) -> bool:
    """Whether a claim of this scope holds in `project` (an unscoped claim holds anywhere)."""
    where, _ = scope_split(scope)
    return not scope or where == GLOBAL or project in scope_projects(scope)


def scopes_meet(left: str, right: str) -> bool:
    """Whether two claims hold in one place, so that opposite ones contradict each other:
    unscoped claims meet everything, two global ones meet, two project ones when a project
    is in both. A project's rule beside a global one is that project's exception, and a rule
    of one project says nothing of another's."""
    if not left or not right:
        return True
    left_where, right_where = scope_split(left)[0], scope_split(right)[0]
    if GLOBAL in (left_where, right_where):
        return left_where == right_where
    return bool(set(scope_projects(left)) & set(scope_projects(right)))


def scope_widened(held: str, said: str) -> str:
    """The scope of a claim held as `held` and said again as `said`: the same where (the
    same project, or global) keeps it; said for every project it holds everywhere; a claim
    said in two projects holds everywhere, unless it was said for "this project": then it
    holds in each project it was said in, and only there."""
    if not held or not said:
        return held
    held_where, said_where = scope_split(held)[0], scope_split(said)[0]
    if held_where == said_where:
        if scope_here(said) and not scope_here(held):
            where, qualifier = scope_split(held)
            return scope_of(projects=scope_projects(held), qualifiers=(qualifier, HERE))
        return held
    if GLOBAL in (held_where, said_where):
        return GLOBAL
    if not (scope_here(held) or scope_here(said)):
        return GLOBAL
    projects = tuple(dict.fromkeys((*scope_projects(held), *scope_projects(said))))
    qualifiers = scope_split(held)[1].split(_QUALIFIERS_JOIN)
    if HERE not in qualifiers:
        qualifiers.append(HERE)
    widened = scope_of(projects=projects, qualifiers=tuple(qualifiers))
    return widened if len(widened) <= SCOPE_CHARS else held


def split_key(key: str) -> tuple[str, str]:
    """`world:person:anya` -> (`world:person`, `anya`)."""
    namespace, _, slug = key.rpartition(":")
    return namespace, slug


def actor_entity(actor: Mapping[str, str], *, ref: str, namespace: str) -> EntitySpec:
    """An actor of the observation as an entity: by its key when it has one, else by name
    in `namespace`."""
    name = actor.get("name") or ""
    key = actor.get("key") or ""
    if key and ":" in key:
        key_namespace, slug = split_key(key)
        return EntitySpec(ref=ref, namespace=key_namespace, name=name or slug, key=key,
                          role=actor.get("role", ""), actor=True)
    return EntitySpec(ref=ref, namespace=namespace, name=name or key,
                      role=actor.get("role", ""), actor=True)


def actors_by_role(view: ObservationView) -> dict[str, Mapping[str, str]]:
    """The observation's actors by role (the first one of each role)."""
    found: dict[str, Mapping[str, str]] = {}
    for actor in view.actors:
        found.setdefault(actor.get("role", ""), actor)
    return found
