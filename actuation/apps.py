from django.apps import AppConfig


class ActuationConfig(AppConfig):
    name = "actuation"
    verbose_name = "Actuation (proposals and approvals)"

    def ready(self) -> None:
        from actuation import demo, sleep
        from actuation.detectors import registry
        from insight.demo.finishers import demo_finisher_register
        from actuation.services.graph_rebuild import proposal_entities_unlink
        from memory.retain.replay import rebuild_clear_register
        from memory.sleep.registry import sleep_step

        registry.detectors_register()
        sleep_step(sleep.STEP, order=sleep.ORDER)(sleep.detectors_step)
        demo_finisher_register("actuation", demo.demo_proposals)
        rebuild_clear_register("actuation", proposal_entities_unlink)
