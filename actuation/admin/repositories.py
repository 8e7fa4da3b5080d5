from __future__ import annotations

from django.contrib import admin

from actuation.models import TargetRepository


@admin.register(TargetRepository)
class TargetRepositoryAdmin(admin.ModelAdmin[TargetRepository]):
    list_display = ("name", "path", "default_branch", "remote", "pr_mode", "active")
    list_filter = ("active", "pr_mode")
    search_fields = ("name", "path")
