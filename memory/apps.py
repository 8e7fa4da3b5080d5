from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory (the substrate)"

    def ready(self) -> None:
        # Imported here, not at the top: these modules need the app registry (models) ready.
        from memory.config import config_get

        config_get()  # a wrong config/decay.yaml stops Cortex at start, naming the key
        from memory.retain import (
            builtin,  # noqa: F401 - registers memory's own handlers
            memories,  # noqa: F401 - the handler of free-text memories
        )
