from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory (the substrate)"

    def ready(self) -> None:
        from memory.retain import builtin  # noqa: F401 - registers memory's own handlers
