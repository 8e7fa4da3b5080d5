"""Sleep-cycle runs (counts, durations per step) and the threshold crossings they saw."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString
from django.views.decorators.http import require_POST

from memory.admin.base import ReadOnlyAdmin
from memory.admin.paging import EstimatedCountPaginator
from memory.models import EntityTransition, RelationTransition, SleepCycleRun
from memory.services.sleep_cycle import sleep_cycle_enqueue


@admin.register(SleepCycleRun)
class SleepCycleRunAdmin(ReadOnlyAdmin):
    list_display = ("id", "as_of", "status", "trigger", "started_at", "duration_ms", "summary")
    list_filter = ("status", "trigger")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
    fields = ("as_of", "status", "trigger", "started_at", "finished_at", "duration_ms",
              "worker", "config_digest", "error", "step_table", "transitions")
    readonly_fields = fields

    @admin.display(description="crossings")
    def summary(self, obj: SleepCycleRun) -> str:
        c = obj.counts
        return (f"entities {c.get('entities_fell', 0)} fell / {c.get('entities_rose', 0)} rose; "
                f"relations {c.get('relations_fell', 0)} fell / {c.get('relations_rose', 0)} rose")

    @admin.display(description="steps")
    def step_table(self, obj: SleepCycleRun) -> SafeString:
        rows = format_html_join("", "<tr><td>{}</td><td>{}</td><td>{} ms</td><td>{}</td>"
                                "<td>{}</td></tr>", (
            (s["name"], s["status"], s["duration_ms"],
             ", ".join(f"{k} {v}" for k, v in s["counts"].items()), s["error"])
            for s in obj.steps))
        return format_html("<table><tr><th>step</th><th>status</th><th>duration</th>"
                           "<th>counts</th><th>error</th></tr>{}</table>", rows)

    @admin.display(description="transitions")
    def transitions(self, obj: SleepCycleRun) -> SafeString:
        entities = reverse("admin:memory_entitytransition_changelist")
        relations = reverse("admin:memory_relationtransition_changelist")
        return format_html('<a href="{}?run={}">entities</a> · '
                           '<a href="{}?run={}">relations</a>',
                           entities, obj.pk, relations, obj.pk)

    def get_urls(self) -> list[URLPattern]:
        run_now = self.admin_site.admin_view(require_POST(self.run_now))
        return [path("run-now/", run_now, name="memory_sleepcyclerun_run_now"),
                *super().get_urls()]

    def run_now(self, request: HttpRequest) -> HttpResponse:
        sleep_cycle_enqueue(trigger="admin")
        self.message_user(request, "The sleep cycle is queued; refresh to see its run.",
                          messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:memory_sleepcyclerun_changelist"))


class TransitionAdmin(ReadOnlyAdmin):
    """A crossing: its value at the run before and at this run, to three decimals."""

    list_filter = ("direction",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    @admin.display(description="before", ordering="before")
    def before_shown(self, obj: EntityTransition | RelationTransition) -> str:
        return f"{obj.before:.3f}"

    @admin.display(description="after", ordering="after")
    def after_shown(self, obj: EntityTransition | RelationTransition) -> str:
        return f"{obj.after:.3f}"


@admin.register(EntityTransition)
class EntityTransitionAdmin(TransitionAdmin):
    list_display = ("run", "entity", "direction", "before_shown", "after_shown")
    list_select_related = ("run", "entity")
    fields = ("run", "entity", "direction", "before_shown", "after_shown")
    readonly_fields = fields


@admin.register(RelationTransition)
class RelationTransitionAdmin(TransitionAdmin):
    list_display = ("run", "relation", "direction", "before_shown", "after_shown")
    list_select_related = ("run", "relation")
    fields = ("run", "relation", "direction", "before_shown", "after_shown")
    readonly_fields = fields
