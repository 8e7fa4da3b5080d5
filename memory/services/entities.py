"""Writes to entities' decay parameters. Each write also stores the strength it
produces, evaluated in the same statement (see `memory.models.graph`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any, cast

from django.db import connection
from django.db.models import BooleanField, Case, DateTimeField, F, Q, QuerySet, Value, When
from django.db.models.expressions import RawSQL
from django.db.models.functions import Greatest
from django.db.models.sql import UpdateQuery

from memory import clock
from memory.config import DecayConfig, config_get
from memory.decay.formulas import EntityState, strength_after
from memory.decay.sql import EntityColumns, num, strength_sql
from memory.models import Entity, EntityStatus, Namespace, Route
from memory.selectors.statements import statement_get


class Outcome:
    POSITIVE = "positive"
    NEGATIVE = "negative"
    ALL = (POSITIVE, NEGATIVE)


def _stored_strength(
    *, now: datetime, config: DecayConfig, cols: EntityColumns | None = None
) -> dict[str, Any]:
    """UPDATE assignments storing the strength the row will have after the update."""
    return {"strength": strength_sql(now=now, config=config, cols=cols),
            "strength_evaluated_at": now}


def _stored_bound(*, now: datetime, config: DecayConfig, cols: EntityColumns,
                  headroom: int) -> dict[str, Any]:
    """UPDATE assignments keeping the stored strength while it bounds the row's strength
    after the update, else storing the strength after `headroom` more recalls (at `now`)."""
    exact = strength_sql(now=now, config=config, cols=cols)
    ahead = strength_sql(now=now, config=config, cols=cols.replace(
        retrieval_count=cols.retrieval_count + headroom))
    loose = Q(strength__isnull=True) | Q(strength__lt=exact)
    return {"strength": Case(When(loose, then=ahead), default=F("strength")),
            "strength_evaluated_at": Case(
                When(loose, then=Value(now, output_field=DateTimeField())),
                default=F("strength_evaluated_at"))}


def entity_create(
    *,
    namespace: Namespace,
    slug: str,
    display_name: str = "",
    aliases: Sequence[str] = (),
    base: float | None = None,
    half_life_days: float | None = None,
    valence: str | None = None,
    pinned: bool | None = None,
    route: str = Route.NORMAL,
    status: str = EntityStatus.ACTIVE,
    now: datetime | None = None,
    config: DecayConfig | None = None,
) -> Entity:
    """A new entity under `namespace`, with the namespace's defaults where not given."""
    now = now or clock.now()
    config = config or config_get()
    entity = Entity(
        namespace=namespace, slug=slug, key=f"{namespace.path}:{slug}",
        display_name=display_name or slug, aliases=list(aliases),
        memory_type=namespace.memory_type, referent=namespace.referent,
        base=namespace.base_strength if base is None else base,
        half_life_days=namespace.half_life_days if half_life_days is None else half_life_days,
        valence=valence or namespace.valence,
        pinned=namespace.pinned if pinned is None else pinned,
        route=route, status=status, last_reinforced_at=now, created_at=now,
        strength_evaluated_at=now,
    )
    entity.strength = strength_after(entity_state(entity), dt_days=0.0, config=config)
    entity.save(force_insert=True)
    return entity


def entity_state(entity: Entity) -> EntityState:
    return EntityState(
        base=entity.base, half_life_days=entity.half_life_days, valence=entity.valence,
        pos=entity.pos, neg=entity.neg, retrieval_count=entity.retrieval_count,
        route=entity.route, pinned=entity.pinned,
    )


def entity_reinforce(
    *, entity_ids: Collection[int], now: datetime | None = None,
    config: DecayConfig | None = None, bound: bool = False,
) -> int:
    """A recall of each entity, in one statement: retrieval_count + 1, the clock restarts.

    Only active entities are reinforced (dark matter waits for review; a merged
    entity lives on in the one it was merged into). Returns how many were.

    `bound` (recall and context, a recall at a time): the stored strength is kept as an
    upper bound, as the Retain Job keeps it (memory.models.graph): rewritten, with the
    strength after `retain.strength_bound_recalls` more recalls, only when the new strength
    is above it (or it is unset), and otherwise left, so that no indexed column changes and
    the row's new version can be a HOT update (no index entries, the names' search vector
    not recomputed). 0 recalls, or `bound=False`: the exact strength, every time.
    """
    if not entity_ids:
        return 0
    now = now or clock.now()
    config = config or config_get()
    headroom = config.retain.strength_bound_recalls if bound else 0

    def build(now: datetime, ids: list[int]) -> tuple[str, Sequence[Any]]:
        # The UPDATE the queryset would run; compiled once per configuration (the strength
        # expression costs milliseconds to compile, more than the statement takes to run).
        count = F("retrieval_count") + 1
        restarted = Greatest(F("last_reinforced_at"), Value(now, output_field=DateTimeField()))
        cols = EntityColumns().replace(retrieval_count=count, last_reinforced_at=restarted)
        chosen = RawSQL("id = ANY(%s)", (ids,), output_field=BooleanField())
        query = cast(UpdateQuery, Entity.objects.filter(chosen, status=EntityStatus.ACTIVE)
                     .query.chain(UpdateQuery))
        stored = (_stored_bound(now=now, config=config, cols=cols, headroom=headroom)
                  if headroom else _stored_strength(now=now, config=config, cols=cols))
        query.add_update_values({"retrieval_count": count, "last_reinforced_at": restarted,
                                 **stored})
        sql, params = query.get_compiler(Entity.objects.db).as_sql()
        return str(sql), tuple(params)

    sql, params = statement_get(key=("entity_reinforce", headroom), owner=config, build=build,
                                at=now, ids=sorted(set(entity_ids)))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def entity_feedback(
    *, entity_id: int, outcome: str, now: datetime | None = None,
    config: DecayConfig | None = None,
) -> Entity:
    """An outcome reported on the entity: pos or neg + 1 (the reward factor)."""
    if outcome not in Outcome.ALL:
        raise ValueError(f"outcome must be one of {Outcome.ALL}, got {outcome!r}")
    column = "pos" if outcome == Outcome.POSITIVE else "neg"
    cols = EntityColumns().replace(**{column: F(column) + 1})
    return _update_one(entity_id, now=now, config=config, cols=cols, **{column: F(column) + 1})


def entity_pin(*, entity_id: int, now: datetime | None = None) -> Entity:
    """Pinned: infinite strength, exempt from decay, ranked above everything unpinned."""
    cols = EntityColumns().replace(pinned=Value(True))
    return _update_one(entity_id, now=now, config=None, cols=cols, pinned=True)


def entity_unpin(
    *, entity_id: int, now: datetime | None = None, config: DecayConfig | None = None
) -> Entity:
    """Back to decaying from its last reinforcement, as if it had never been pinned."""
    cols = EntityColumns().replace(pinned=Value(False))
    return _update_one(entity_id, now=now, config=config, cols=cols, pinned=False)


def _update_one(
    entity_id: int, *, now: datetime | None, config: DecayConfig | None, cols: EntityColumns,
    **changes: Any,
) -> Entity:
    now = now or clock.now()
    config = config or config_get()
    updated = Entity.objects.filter(pk=entity_id).update(
        **changes, **_stored_strength(now=now, config=config, cols=cols)
    )
    if not updated:
        raise Entity.DoesNotExist(f"no entity with id {entity_id}")
    return Entity.objects.get(pk=entity_id)


def entity_strength_store(
    *, queryset: QuerySet[Entity], now: datetime | None = None,
    config: DecayConfig | None = None,
) -> int:
    """Store the current strength of these entities (for writers that change parameters)."""
    now = now or clock.now()
    config = config or config_get()
    return queryset.update(**_stored_strength(now=now, config=config))


def entity_half_life_follow(
    *, namespace_id: int, old: float, new: float, now: datetime | None = None,
    config: DecayConfig | None = None,
) -> int:
    """Entities still on their namespace's old default half-life move to the new one."""
    now = now or clock.now()
    config = config or config_get()
    cols = EntityColumns().replace(half_life_days=num(new))
    return Entity.objects.filter(Q(namespace_id=namespace_id) & Q(half_life_days=old)).update(
        half_life_days=new, **_stored_strength(now=now, config=config, cols=cols)
    )
