"""Agents in the admin: create one (its token shown once), issue and revoke tokens."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join

from memory.limits import SOURCE_CHARS
from memory.models.agents import Agent, Scope
from memory.selectors.agents import agent_list
from memory.services.agents import agent_create, agent_revoke, agent_token_issue


class AgentForm(forms.ModelForm[Agent]):
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices, widget=forms.CheckboxSelectMultiple, required=False
    )
    source = forms.CharField(max_length=SOURCE_CHARS, required=False,
                             help_text="Default: api:<name>.")

    class Meta:
        model = Agent
        fields = ["name", "source", "scopes", "rate_limit"]


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin[Agent]):
    form = AgentForm
    list_display = ("name", "source", "scope_list", "rate_limit", "token_count", "created_at")
    search_fields = ("name", "source")
    readonly_fields = ("tokens", "created_at")
    actions = ("issue_token", "revoke_tokens")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Agent]:
        return agent_list()

    def get_readonly_fields(self, request: HttpRequest, obj: Agent | None = None) -> Any:
        return ("name", "tokens", "created_at") if obj else ()

    def get_fields(self, request: HttpRequest, obj: Agent | None = None) -> Any:
        base = ["name", "source", "scopes", "rate_limit"]
        return [*base, "tokens", "created_at"] if obj else base

    @admin.display(description="scopes")
    def scope_list(self, agent: Agent) -> str:
        return ", ".join(agent.scopes)

    @admin.display(description="tokens")
    def token_count(self, agent: Agent) -> int:
        return int(getattr(agent, "token_count", 0))

    @admin.display(description="tokens (hashed; revoke them in Knox › Auth tokens)")
    def tokens(self, agent: Agent) -> str:
        rows = agent.user.auth_token_set.order_by("-created")  # type: ignore[attr-defined]
        return format_html_join(
            "", "<div>{}… created {}, expires {}</div>",
            ((t.token_key, t.created, t.expiry or "never") for t in rows),
        ) or "none"

    def save_model(self, request: HttpRequest, obj: Agent, form: Any, change: bool) -> None:
        if change:
            obj.source = obj.source or f"api:{obj.name}"
            super().save_model(request, obj, form, change)
            return
        agent, token = agent_create(
            name=obj.name, scopes=obj.scopes, source=obj.source or None, rate_limit=obj.rate_limit
        )
        obj.pk, obj.user = agent.pk, agent.user
        obj._state.adding = False
        self._show_token(request, agent, token)

    def delete_model(self, request: HttpRequest, obj: Agent) -> None:
        obj.user.delete()  # cascades to the agent and its tokens

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Agent]) -> None:
        for agent in queryset.select_related("user"):
            agent.user.delete()

    def _show_token(self, request: HttpRequest, agent: Agent, token: str) -> None:
        self.message_user(
            request,
            f"Token for {agent.name} (shown once; send it as 'Authorization: Token …'): {token}",
            messages.WARNING,
        )

    @admin.action(description="Issue a new token (shown once)")
    def issue_token(self, request: HttpRequest, queryset: QuerySet[Agent]) -> None:
        for agent in queryset.select_related("user"):
            self._show_token(request, agent, agent_token_issue(agent=agent))

    @admin.action(description="Revoke all tokens")
    def revoke_tokens(self, request: HttpRequest, queryset: QuerySet[Agent]) -> None:
        for agent in queryset:
            count = agent_revoke(name=agent.name)
            self.message_user(request, f"Revoked {count} token(s) of {agent.name}.")
