"""What the Retain Job writes besides entities and relations (SPEC section 6).

Facts are claims on an entity, with their polarity and lemmas (compared across English
and French); Conflicts pair two contradicting facts for review; ReviewItems queue dark
matter for the operator. Mentions and evidence rows tie entities, relations and facts to
the observations they came from (provenance). Aliases, vocabulary and pair counts are the
job's lookup tables; merges record what a merge moved so that a wrong one can be split.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from pgvector.django import HnswIndex, VectorField

from memory import clock
from memory.models.graph import Entity, Relation
from memory.models.observations import Observation
from memory.models.taxonomy import Namespace

EMBEDDING_DIMENSION = 384


class EntityAlias(models.Model):
    """A normalized name (casefold, no accents, no punctuation) of an entity in a namespace.

    The first entity to claim a name keeps it; a merged entity's names lead to it, and the
    lookup follows `merged_into` to the survivor."""

    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+",
                                  db_index=False)
    normalized = models.CharField(max_length=300)
    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="alias_rows")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "normalized"], name="entity_alias_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.normalized} -> {self.entity_id}"


class EntityMention(models.Model):
    """An observation mentioning an entity, in a role; `reinforced` once it counted as a recall."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="mentions",
                               db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT,
                                    related_name="mentions")
    role = models.CharField(max_length=64, blank=True, default="")
    reinforced = models.BooleanField(default=False)
    at = models.DateTimeField(help_text="The observation's timestamp.")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "observation", "role"],
                                    name="entity_mention_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.entity_id} in {self.observation_id} ({self.role})"


class RelationEvidence(models.Model):
    relation = models.ForeignKey(Relation, on_delete=models.PROTECT, related_name="evidence",
                                 db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["relation", "observation"],
                                    name="relation_evidence_unique"),
        ]

    def __str__(self) -> str:
        return f"relation {self.relation_id} in {self.observation_id}"


class FactStatus(models.TextChoices):
    ACTIVE = "active"
    CONTESTED = "contested", "contested (a conflict awaits review)"
    REJECTED = "rejected"
    SCOPED = "scoped", "scoped (kept beside a contradicting claim)"
    QUARANTINED = "quarantined", "quarantined (dark matter awaiting review)"


class Fact(models.Model):
    """A claim held about an entity. The same content lemmas with the same polarity are the
    same fact, whatever the wording or the language ("use uv" / "utilise uv")."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="facts",
                               db_index=False)
    claim = models.CharField(max_length=500, help_text="As first stated.")
    lemma_key = models.CharField(max_length=500, help_text="Sorted content lemmas.")
    lemmas = ArrayField(models.CharField(max_length=100), default=list)
    polarity = models.SmallIntegerField(help_text="+1 affirmative, -1 negated.")
    scope = models.CharField(max_length=300, blank=True, default="")
    language = models.CharField(max_length=16, blank=True, default="")
    status = models.CharField(max_length=12, choices=FactStatus.choices,
                              default=FactStatus.ACTIVE)
    evidence_count = models.PositiveIntegerField(default=1)
    first_seen_at = models.DateTimeField()
    last_seen_at = models.DateTimeField()
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+",
                                    null=True, blank=True, help_text="The first to state it.")
    event_ids = ArrayField(models.CharField(max_length=26), default=list, blank=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity", "lemma_key", "polarity"],
                                    name="fact_unique_claim"),
        ]

    def __str__(self) -> str:
        return f"{'' if self.polarity > 0 else 'NOT '}{self.claim}"


class FactEvidence(models.Model):
    fact = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="evidence",
                             db_index=False)
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["fact", "observation"], name="fact_evidence_unique"),
        ]

    def __str__(self) -> str:
        return f"fact {self.fact_id} in {self.observation_id}"


class ConflictStatus(models.TextChoices):
    OPEN = "open"
    KEPT_EXISTING = "kept_existing", "kept the existing claim"
    KEPT_NEW = "kept_new", "kept the new claim"
    KEPT_BOTH = "kept_both", "kept both, as scoped"
    REJECTED_NEW = "rejected_new", "rejected the new claim"
    WITHDRAWN = "withdrawn", "withdrawn (the merge that caused it was split)"


class Conflict(models.Model):
    """A new claim contradicting an existing one on the same entity, queued for review."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="conflicts")
    existing = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="+")
    new = models.ForeignKey(Fact, on_delete=models.PROTECT, related_name="+")
    jaccard = models.FloatField()
    observation = models.ForeignKey(Observation, on_delete=models.PROTECT, related_name="+",
                                    null=True, blank=True)
    status = models.CharField(max_length=16, choices=ConflictStatus.choices,
                              default=ConflictStatus.OPEN)
    created_at = models.DateTimeField(help_text="When the newer claim was made.")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=150, blank=True, default="")
    note = models.TextField(blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["existing", "new"], name="conflict_unique_pair"),
        ]
        indexes = [models.Index(fields=["status", "created_at"], name="conflict_queue")]

    def __str__(self) -> str:
        return f"conflict on {self.entity_id}: {self.existing_id} vs {self.new_id}"


class ReviewStatus(models.TextChoices):
    OPEN = "open"
    ACCEPTED = "accepted", "accepted into the graph"
    KEPT_QUARANTINED = "kept_quarantined", "kept quarantined"
    MERGED = "merged", "merged into an existing entity"


class ReviewItem(models.Model):
    """Dark matter (schema_fit below the threshold) awaiting the operator."""

    observation = models.OneToOneField(Observation, on_delete=models.PROTECT,
                                       related_name="review_item")
    entities = models.ManyToManyField(Entity, related_name="review_items", blank=True,
                                      help_text="The entities it created, quarantined.")
    schema_fit = models.FloatField()
    status = models.CharField(max_length=16, choices=ReviewStatus.choices,
                              default=ReviewStatus.OPEN)
    created_at = models.DateTimeField(help_text="The observation's timestamp.")
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.CharField(max_length=150, blank=True, default="")
    merged_into = models.ForeignKey(Entity, on_delete=models.PROTECT, null=True, blank=True,
                                    related_name="+")

    class Meta:
        indexes = [models.Index(fields=["status", "created_at"], name="review_queue")]

    def __str__(self) -> str:
        return f"review of {self.observation_id} ({self.status})"


class MergeReason(models.TextChoices):
    EMBEDDING = "embedding", "embeddings (the dedup pass)"
    OPERATOR = "operator"


class EntityMerge(models.Model):
    """One entity merged into another, with what the merge moved (to split it again)."""

    merged = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="merges_out")
    survivor = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="merges_in")
    reason = models.CharField(max_length=12, choices=MergeReason.choices)
    similarity = models.FloatField(null=True, blank=True)
    merged_status = models.CharField(max_length=12, help_text="Its status before the merge.")
    aliases_added = ArrayField(models.CharField(max_length=300), default=list, blank=True)
    # {"entity": {...survivor columns before}, "relations_moved": [[id, "source"|"target"]],
    #  "relations_folded": [{"from", "into", "evidence", "before": {...}}],
    #  "facts_moved": [id], "facts_folded": [...], "conflicts": [id]}
    moved = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=clock.now)
    split_at = models.DateTimeField(null=True, blank=True)
    split_by = models.CharField(max_length=150, blank=True, default="")

    def __str__(self) -> str:
        return f"{self.merged_id} -> {self.survivor_id}"


class RegenerationRequest(models.Model):
    """An entity whose compiled truth should be regenerated (consumed by Layer 3): its
    strength moved past the regeneration threshold, or it gained facts or relations."""

    entity = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="+",
                               db_index=False)
    reasons = ArrayField(models.CharField(max_length=32), default=list)
    strength = models.FloatField(null=True, blank=True,
                                 help_text="Its strength when last requested.")
    requested_at = models.DateTimeField()
    consumed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["entity"], condition=models.Q(consumed_at=None),
                                    name="regeneration_one_open"),
        ]
        indexes = [models.Index(fields=["entity", "-requested_at"], name="regeneration_entity")]

    def __str__(self) -> str:
        return f"regenerate {self.entity_id} ({', '.join(self.reasons)})"


class VocabularyTerm(models.Model):
    """A lemma a namespace uses: its path words, its entities' names and facts, and the topics
    of the observations retained into it (schema_fit's vocabulary share)."""

    namespace = models.CharField(max_length=255)
    lemma = models.CharField(max_length=100)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["namespace", "lemma"], name="vocabulary_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.namespace}: {self.lemma}"


class PairFamiliarity(models.Model):
    """How many observations of a (category, target namespace) pair were retained."""

    category = models.CharField(max_length=64)
    namespace = models.CharField(max_length=255)
    retained = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["category", "namespace"], name="pair_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.category} on {self.namespace}: {self.retained}"


class DedupState(models.TextChoices):
    PENDING = "pending", "waiting for the dedup pass"
    DONE = "done"
    SKIPPED = "skipped", "skipped (fast lane, dark matter, or alias-only namespace)"


class EntityEmbedding(models.Model):
    """An entity's embedding for deduplication (and vector recall), computed offline.

    Kept beside `Entity` rather than in it: entities are rewritten on every mention, and a
    384-float vector in the row would be copied by each of those updates."""

    entity = models.OneToOneField(Entity, on_delete=models.PROTECT, primary_key=True,
                                  related_name="embedding")
    namespace = models.ForeignKey(Namespace, on_delete=models.PROTECT, related_name="+",
                                  db_index=False)
    # One fixed dimension per column (pgvector): an embedder of another dimension needs a
    # migration; `model` and `dimension` say what produced each vector.
    vector = VectorField(dimensions=EMBEDDING_DIMENSION, null=True, blank=True)
    model = models.CharField(max_length=100, blank=True, default="")
    dimension = models.PositiveSmallIntegerField(null=True, blank=True)
    text = models.CharField(max_length=300, blank=True, default="")
    dedup = models.CharField(max_length=8, choices=DedupState.choices,
                             default=DedupState.PENDING)
    embedded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            HnswIndex(name="entity_embedding_hnsw", fields=["vector"], m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            models.Index(fields=["namespace"], name="entity_embedding_ns"),
            models.Index(fields=["dedup"], name="entity_embedding_pending",
                         condition=models.Q(dedup="pending")),
        ]

    def __str__(self) -> str:
        return f"embedding of {self.entity_id} ({self.model or 'not yet'})"
