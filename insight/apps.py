from functools import partial

from django.apps import AppConfig


class InsightConfig(AppConfig):
    name = "insight"
    verbose_name = "Insight (producers and analyzers)"

    def ready(self) -> None:
        # Imported here, not at the top: these modules need the app registry (models) ready.
        from insight import handlers  # noqa: F401 - registers the Retain Job's handlers
        from insight.services.retain_hooks import PRODUCER, analysis_horizon
        from memory.retain.horizon import retain_horizon_register
        from memory.retain.replay import replay_producer_register

        retain_horizon_register("insight.analysis", analysis_horizon)
        replay_producer_register(PRODUCER)

        from insight.services.analysis import analysis_enqueue
        from memory.services.memories import MEMORY_STREAM, memories_appended_register

        memories_appended_register(partial(analysis_enqueue, sources=[MEMORY_STREAM]))
