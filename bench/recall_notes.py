"""The small seeded graph the MCP and NATS latency benchmarks recall from: notes about a few
people, projects and places, consolidated like any memory, and queries over them."""

from __future__ import annotations

import random

PEOPLE = ["Anya Petrova", "Bruno Dupont", "Chloé Bernard", "Dmitri Ivanov", "Emma Wilson",
          "Farid Haddad", "Greta Berg", "Hugo Moreau", "Inès Silva", "Jonas Keller"]
PLACES = ["Paris", "Lyon", "Berlin", "London", "Lisbon", "Tokyo", "Montreal", "Geneva"]
PROJECTS = ["Atlas", "Nimbus", "Orion", "Helix", "Quasar"]
QUERIES = [*PEOPLE, *(f"{p} demo" for p in PROJECTS), *(f"meeting in {p}" for p in PLACES),
           "who moved the Orion launch", "Petrowa", "réunion à Lyon"]


def notes_seed(count: int, seed: int) -> None:
    """`count` notes remembered, analyzed and retained (Django set up by the caller)."""
    from insight.services.analysis import analysis_drain
    from memory.services.memories import memories_remember
    from memory.services.retain import retain_drain

    rng = random.Random(seed)
    memories = [{"text": f"{rng.choice(PEOPLE)} moved the {rng.choice(PROJECTS)} demo to "
                         f"{rng.choice(PLACES)} with {rng.choice(PEOPLE)} (note {i})."}
                for i in range(count)]
    for start in range(0, count, 500):
        memories_remember(source="api:bench", memories=memories[start:start + 500])
    analysis_drain()
    retain_drain(embed=False)
