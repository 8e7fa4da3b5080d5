"""Where each producer stands in each outside source, committed with the events it produced."""

from __future__ import annotations

from django.db import models


class SourceFile(models.Model):
    """One transcript file: its identity and the byte offset read so far."""

    path = models.TextField(unique=True)
    rel_path = models.TextField(blank=True, default="")
    kind = models.CharField(max_length=16, blank=True, default="")
    device = models.BigIntegerField(default=0)
    inode = models.BigIntegerField(default=0)
    head_len = models.IntegerField(default=0)
    head_sha = models.CharField(max_length=64, blank=True, default="")
    size = models.BigIntegerField(default=0)
    mtime_ns = models.BigIntegerField(default=0)
    offset = models.BigIntegerField(default=0)
    unterminated_tail = models.BooleanField(default=False)
    cwd = models.TextField(blank=True, default="")
    project = models.CharField(max_length=255, blank=True, default="")
    session = models.CharField(max_length=255, blank=True, default="")
    parent_session = models.CharField(max_length=255, blank=True, default="")
    last_timestamp = models.CharField(max_length=64, blank=True, default="")
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["path"]

    def __str__(self) -> str:
        return f"{self.rel_path or self.path} @ {self.offset}"


class GitRepository(models.Model):
    """One repository: the ref tips seen at the last ingestion (the next one starts there)."""

    path = models.TextField(unique=True)
    name = models.CharField(max_length=255)
    tips = models.JSONField(default=dict, blank=True)  # ref name -> commit sha
    commits = models.BigIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name_plural = "git repositories"

    def __str__(self) -> str:
        return self.name
