"""Target repositories, registered by the operator here or with `cortex actuate repo add`
(the same service: the path must be a git repository holding the branch)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from actuation.models import TargetRepository
from actuation.selectors.repositories import repository_problem
from actuation.services.repositories import repository_add
from memory.config import config_get


class TargetRepositoryForm(forms.ModelForm[TargetRepository]):
    class Meta:
        model = TargetRepository
        fields = ("name", "path", "default_branch", "remote", "pr_mode", "memory_file",
                  "active")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            problem = repository_problem(
                path=data["path"], branch=data["default_branch"],
                timeout=float(config_get().actuation.command_timeout_seconds))
            if problem:
                raise forms.ValidationError(problem)
        return data


@admin.register(TargetRepository)
class TargetRepositoryAdmin(admin.ModelAdmin[TargetRepository]):
    form = TargetRepositoryForm
    list_display = ("name", "path", "default_branch", "remote", "pr_mode", "active")
    list_filter = ("active", "pr_mode")
    search_fields = ("name", "path")

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        saved = repository_add(name=obj.name, path=obj.path, remote=obj.remote,
                               branch=obj.default_branch, pr_mode=obj.pr_mode,
                               memory_file=obj.memory_file)
        if not obj.active:
            TargetRepository.objects.filter(pk=saved.pk).update(active=False)
        obj.pk = saved.pk
