"""When `cortex rebuild graph` clears the derived graph, it truncates the proposals' links
to the entity rows with it (the rows are made anew); the proposals' evidence keeps the
entities' keys, and `proposal_entities_relink` ties them to the rebuilt rows by key."""

from __future__ import annotations

from actuation.models import Proposal
from memory.models import Entity

PROPOSAL_LINKS = Proposal.entities.through._meta.db_table


def proposal_entities_relink() -> int:
    """Link every proposal to the entities its evidence names, as they exist now."""
    linked = 0
    for proposal in Proposal.objects.only("id", "evidence"):
        keys = [e.get("key") for e in proposal.evidence.get("entities", []) if e.get("key")]
        ids = list(Entity.objects.filter(key__in=keys).values_list("id", flat=True))
        proposal.entities.set(ids)
        linked += len(ids)
    return linked
