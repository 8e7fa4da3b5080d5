"""A git repository Cortex may propose changes to, registered by the operator."""

from __future__ import annotations

from django.db import models

from memory import clock


class PullRequestMode(models.TextChoices):
    GH = "gh", "gh pr create when gh is available and configured"
    BRANCH = "branch", "push the branch and record the command that opens the pull request"


class TargetRepository(models.Model):
    name = models.CharField(max_length=200, unique=True,
                            help_text="Matched against the project name seen in the events.")
    path = models.CharField(max_length=1000, help_text="The operator's local clone.")
    default_branch = models.CharField(max_length=200, default="main")
    remote = models.CharField(max_length=1000, default="origin",
                              help_text="A remote name of the clone, or a URL or path.")
    pr_mode = models.CharField(max_length=8, choices=PullRequestMode.choices,
                               default=PullRequestMode.GH)
    memory_file = models.CharField(max_length=300, blank=True, default="",
                                   help_text="The memory file (empty: the config's default).")
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=clock.now)

    class Meta:
        verbose_name = "target repository"
        verbose_name_plural = "target repositories"

    def __str__(self) -> str:
        return self.name
