"""The graph as one chunk of the Retain Job sees it: loaded in a few queries, changed in
memory observation by observation (each sees the effects of the ones before it), then
written in a few statements (memory.services.retain_flush).

Entities are held by key as `Node`s; a new one has no id until the flush.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson

from memory.config import config_get
from memory.models import Fact, Namespace, PairFamiliarity
from memory.retain.names import first_name_of, given_name, namespace_matches
from memory.retain.text import normalize
from memory.selectors.sql import sql_rows
from memory.services.retain_sql import json_param, json_rows

_ENTITY_FIELDS = ("id", "key", "namespace_id", "status", "route", "display_name", "aliases",
                  "base", "half_life_days", "valence", "pos", "neg", "retrieval_count",
                  "last_reinforced_at", "pinned", "merged_into_id", "memory_type", "referent",
                  "created_at")
_ENTITY_SELECT = "SELECT " + ", ".join(_ENTITY_FIELDS) + " FROM memory_entity"


@dataclass
class Node:
    key: str
    namespace: Namespace
    status: str
    route: str
    display_name: str
    aliases: list[str]
    base: float
    half_life_days: float
    valence: str
    pinned: bool
    last_reinforced_at: datetime
    created_at: datetime
    pos: int = 0
    neg: int = 0
    retrieval_count: int = 0
    id: int | None = None
    merged_into_id: int | None = None
    new: bool = False
    dedup: str = ""
    aliases_added: list[str] = field(default_factory=list)
    # Its display name changed in this chunk (a first name alone took its full name).
    renamed: bool = False
    reinforcements: int = 0
    reinforced_at: datetime | None = None
    # The normalized names it carries (display name, aliases, aliases added), built once.
    names_normalized: set[str] | None = field(default=None, repr=False, compare=False)

    def known_names(self) -> set[str]:
        """The normalized forms of its names; the caller adds to it what it adds."""
        if self.names_normalized is None:
            self.names_normalized = {normalize(n) for n in (self.display_name, *self.aliases,
                                                            *self.aliases_added)}
        return self.names_normalized


@dataclass
class FactRow:
    entity_key: str
    claim: str
    lemma_key: str
    lemmas: frozenset[str]
    polarity: int
    status: str
    first_seen_at: datetime
    last_seen_at: datetime
    id: int | None = None
    scope: str = ""
    language: str = ""
    observation_id: str | None = None
    event_ids: tuple[str, ...] = ()
    evidence_added: int = 0
    status_changed: bool = False


class GraphCache:
    def __init__(self) -> None:
        self.namespaces: dict[str, Namespace] = {}
        self.nodes: dict[str, Node] = {}
        self.by_id: dict[int, Node] = {}
        self.missing_keys: set[str] = set()
        self.aliases: dict[tuple[str, str], str] = {}
        self.alias_checked: set[tuple[str, str]] = set()
        self.new_aliases: dict[tuple[str, str], str] = {}
        self.vocabulary: dict[str, set[str]] = defaultdict(set)
        self.vocabulary_checked: dict[str, set[str]] = defaultdict(set)
        self.new_vocabulary: set[tuple[str, str]] = set()
        self.pairs: dict[tuple[str, str], int] = {}
        self.pair_increments: dict[tuple[str, str], int] = defaultdict(int)
        self.facts: dict[str, dict[tuple[str, int], FactRow]] = {}
        # (person-like namespace, first name) -> the keys of the names it starts
        self.first_names: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.first_names_checked: set[tuple[str, str]] = set()
        self.person_like = config_get().retain.dedup.person_like

    # -- loading ---------------------------------------------------------------------------

    def load_namespaces(self, paths: Iterable[str]) -> None:
        wanted = set(paths) - set(self.namespaces)
        if wanted:
            for namespace in Namespace.objects.filter(path__in=wanted):
                self.namespaces[namespace.path] = namespace

    def _add_rows(self, rows: Iterable[dict[str, Any]]) -> list[Node]:
        added = []
        ids = {row["namespace_id"] for row in rows}
        known = {ns.pk: ns for ns in self.namespaces.values()}
        if ids - set(known):
            for namespace in Namespace.objects.filter(pk__in=ids - set(known)):
                self.namespaces[namespace.path] = namespace
                known[namespace.pk] = namespace
        for row in rows:
            if row["key"] in self.nodes:
                continue
            values = {k: v for k, v in row.items() if k not in ("namespace_id", "memory_type",
                                                               "referent")}
            node = Node(namespace=known[row["namespace_id"]], **values)
            self.nodes[node.key] = node
            self.by_id[row["id"]] = node
            added.append(node)
        return added

    @staticmethod
    def _rows(column: str, values: Iterable[Any]) -> list[dict[str, Any]]:
        cast = "bigint" if column == "id" else "varchar"
        rows = sql_rows(f"{_ENTITY_SELECT} WHERE {column} = ANY(ARRAY("
                        f"SELECT jsonb_array_elements_text(%s::jsonb)::{cast}))",
                        [orjson.dumps(list(values)).decode()], binary=True)
        return [dict(zip(_ENTITY_FIELDS, row, strict=True)) for row in rows]

    def load_entities(self, *, keys: Iterable[str] = (), ids: Iterable[int] = ()) -> None:
        keys = set(keys) - set(self.nodes) - self.missing_keys
        ids = set(ids) - set(self.by_id)
        if keys:
            self._add_rows(self._rows("key", keys))
            self.missing_keys |= keys - set(self.nodes)
        if ids:
            self._add_rows(self._rows("id", ids))
        self._load_survivors()

    def _load_survivors(self) -> None:
        while True:
            wanted = {n.merged_into_id for n in self.by_id.values()
                      if n.merged_into_id and n.merged_into_id not in self.by_id}
            if not wanted:
                return
            self._add_rows(self._rows("id", wanted))

    def load_aliases(self, pairs: Iterable[tuple[str, str]]) -> None:
        """(namespace path, normalized name) pairs -> the entities holding them; for a
        person's full name, its first name alone too (the person it may have been first)."""
        pairs = set(pairs)
        pairs |= {(path, first) for path, name in pairs
                  if (first := first_name_of(name)) and namespace_matches(path, self.person_like)}
        wanted = {p for p in pairs if p not in self.alias_checked and p[0] in self.namespaces}
        self.alias_checked |= wanted
        if not wanted:
            return
        ns_ids = {self.namespaces[path].pk: path for path, _ in wanted}
        found = sql_rows(
            "SELECT a.namespace_id, a.normalized, a.entity_id FROM memory_entityalias a "
            "JOIN " + json_rows("ns bigint", "name varchar") + " AS w "
            "ON a.namespace_id = w.ns AND a.normalized = w.name",
            [json_param((self.namespaces[p].pk, n) for p, n in wanted)])
        self.load_entities(ids={entity_id for _, _, entity_id in found})
        for ns_id, normalized, entity_id in found:
            self.aliases[(ns_ids[ns_id], normalized)] = self.by_id[entity_id].key
        self.load_first_names((path, given_name(name)) for path, name in wanted)

    def load_first_names(self, pairs: Iterable[tuple[str, str]]) -> None:
        """(person-like namespace, first name) pairs -> the people whose name starts with it
        ("anya" -> "anya petrova")."""
        wanted = {p for p in pairs if p[1] and p not in self.first_names_checked
                  and p[0] in self.namespaces and namespace_matches(p[0], self.person_like)}
        self.first_names_checked |= wanted
        if not wanted:
            return
        ns_ids = {self.namespaces[path].pk: path for path, _ in wanted}
        found = sql_rows(
            "SELECT a.namespace_id, a.normalized, a.entity_id FROM memory_entityalias a "
            "JOIN " + json_rows("ns bigint", "name varchar") + " AS w "
            "ON a.namespace_id = w.ns AND a.normalized LIKE w.name || ' %%'",
            [json_param((self.namespaces[p].pk, n) for p, n in wanted)])
        self.load_entities(ids={entity_id for _, _, entity_id in found})
        for ns_id, normalized, entity_id in found:
            self.first_names[(ns_ids[ns_id], first_name_of(normalized))].add(
                self.by_id[entity_id].key)

    def load_vocabulary(self, wanted: Iterable[tuple[str, str]]) -> None:
        pairs = {(ns, lemma) for ns, lemma in wanted if lemma not in self.vocabulary_checked[ns]}
        if not pairs:
            return
        for ns, lemma in pairs:
            self.vocabulary_checked[ns].add(lemma)
        for ns, lemma in sql_rows(
                "SELECT v.namespace, v.lemma FROM memory_vocabularyterm v "
                "JOIN " + json_rows("ns varchar", "lemma varchar") + " AS w "
                "ON v.namespace = w.ns AND v.lemma = w.lemma",
                [json_param(pairs)]):
            self.vocabulary[ns].add(lemma)

    def load_pairs(self, pairs: Iterable[tuple[str, str]]) -> None:
        wanted = set(pairs) - set(self.pairs)
        if not wanted:
            return
        for pair in wanted:
            self.pairs[pair] = 0
        rows = PairFamiliarity.objects.filter(
            category__in={c for c, _ in wanted}, namespace__in={n for _, n in wanted}
        ).values_list("category", "namespace", "retained")
        for category, namespace, retained in rows:
            if (category, namespace) in wanted:
                self.pairs[(category, namespace)] = retained

    def load_facts(self, nodes: Iterable[Node]) -> None:
        """The facts held on these entities (one query)."""
        wanted = {n.id: n.key for n in nodes if n.key not in self.facts and n.id is not None}
        for key in wanted.values():
            self.facts[key] = {}
        if not wanted:
            return
        for fact in Fact.objects.filter(entity_id__in=wanted):
            key = wanted[fact.entity_id]
            self.facts[key][(fact.lemma_key, fact.polarity)] = FactRow(
                entity_key=key, claim=fact.claim, lemma_key=fact.lemma_key,
                lemmas=frozenset(fact.lemmas), polarity=fact.polarity, status=fact.status,
                first_seen_at=fact.first_seen_at, last_seen_at=fact.last_seen_at, id=fact.pk,
                scope=fact.scope, language=fact.language)

    def facts_of(self, node: Node) -> dict[tuple[str, int], FactRow]:
        if node.key not in self.facts:
            self.load_facts([node])
            self.facts.setdefault(node.key, {})
        return self.facts[node.key]

    # -- reading ---------------------------------------------------------------------------

    def survivor(self, node: Node) -> Node:
        seen = 0
        while node.merged_into_id and seen < 50:
            node = self.by_id[node.merged_into_id]
            seen += 1
        return node

    def find(self, *, key: str, namespace: str, names: Iterable[str],
             also_in: Iterable[str] = ()) -> Node | None:
        """By key, else by a normalized name in the namespace (then in `also_in`, in order);
        the survivor of a merge."""
        node = self.nodes.get(key)
        names = list(names)
        for path in (namespace, *also_in):
            if node is not None:
                break
            for name in names:
                alias_key = self.aliases.get((path, normalize(name)))
                if alias_key is not None:
                    node = self.nodes[alias_key]
                    break
            if node is None:
                node = self._by_first_name(path, names) or self._by_full_name(path, names)
        return self.survivor(node) if node is not None else None

    def _by_first_name(self, path: str, names: Iterable[str]) -> Node | None:
        """A first name alone is the one person of that first name the namespace knows; no
        one when it knows none or several (a new entity then)."""
        if not namespace_matches(path, self.person_like):
            return None
        for name in names:
            if first := given_name(name):
                people = {self.survivor(self.nodes[key]).key
                          for key in self.first_names.get((path, first), ()) if key in self.nodes}
                if len(people) == 1:
                    return self.nodes[people.pop()]
        return None

    def _by_full_name(self, path: str, names: Iterable[str]) -> Node | None:
        """A full name ("Anya Petrova") is the person first known by its first name alone
        ("Anya") when no one else of that first name is known by a full name."""
        if not namespace_matches(path, self.person_like):
            return None
        for name in names:
            first = first_name_of(normalize(name))
            key = self.aliases.get((path, first)) if first else None
            if key is None:
                continue
            others = {self.survivor(self.nodes[k]).key
                      for k in self.first_names.get((path, first), ()) if k in self.nodes}
            if not others:
                return self.nodes[key]
        return None

    def known_lemmas(self, namespace: str, lemmas: Iterable[str]) -> int:
        return sum(1 for lemma in lemmas if lemma in self.vocabulary[namespace])

    def retained_count(self, category: str, namespace: str) -> int:
        return self.pairs.get((category, namespace), 0)

    # -- changing (in memory) --------------------------------------------------------------

    def add_node(self, node: Node) -> None:
        self.nodes[node.key] = node
        self.missing_keys.discard(node.key)
        self.facts.setdefault(node.key, {})

    def add_alias(self, namespace: str, name: str, key: str) -> None:
        normalized = normalize(name)
        if normalized and (namespace, normalized) not in self.aliases:
            self.aliases[(namespace, normalized)] = key
            self.new_aliases[(namespace, normalized)] = key
        if first := first_name_of(normalized):
            self.first_names[(namespace, first)].add(key)

    def take_full_name(self, node: Node, name: str) -> bool:
        """A person known by a first name alone takes the full name it is now given ("Anya"
        -> "Anya Petrova"), the first name staying an alias; whether it did."""
        first = first_name_of(normalize(name))
        if (not first or given_name(node.display_name) != first
                or not namespace_matches(node.namespace.path, self.person_like)):
            return False
        node.aliases_added.append(node.display_name)
        node.display_name, node.renamed = name[:300], True
        node.known_names().add(normalize(name))
        return True

    def add_vocabulary(self, namespace: str, lemmas: Iterable[str]) -> None:
        for lemma in lemmas:
            if lemma not in self.vocabulary[namespace]:
                self.vocabulary[namespace].add(lemma)
                self.new_vocabulary.add((namespace, lemma))

    def count_retained(self, category: str, namespace: str) -> None:
        self.pairs[(category, namespace)] = self.pairs.get((category, namespace), 0) + 1
        self.pair_increments[(category, namespace)] += 1
