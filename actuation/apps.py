from django.apps import AppConfig


class ActuationConfig(AppConfig):
    name = "actuation"
    verbose_name = "Actuation (proposals and approvals)"

    def ready(self) -> None:
        # Imported here, not at the top: these modules need the app registry (models) ready.
        from actuation import sleep
        from actuation.detectors import registry
        from memory.sleep.registry import sleep_step

        registry.detectors_register()
        sleep_step(sleep.STEP, order=sleep.ORDER)(sleep.detectors_step)
