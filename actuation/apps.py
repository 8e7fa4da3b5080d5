from django.apps import AppConfig


class ActuationConfig(AppConfig):
    name = "actuation"
    verbose_name = "Actuation (proposals and approvals)"

    def ready(self) -> None:
        from actuation import demo, sleep
        from actuation.detectors import registry
        from actuation.services.graph_rebuild import PROPOSAL_LINKS, proposal_entities_relink
        from insight.demo.finishers import demo_finisher_register
        from memory.retain.replay import rebuild_derived_register
        from memory.sleep.registry import sleep_step

        registry.detectors_register()
        sleep_step(sleep.STEP, order=sleep.ORDER)(sleep.detectors_step)
        demo_finisher_register("actuation", demo.demo_proposals)
        rebuild_derived_register("actuation", tables=(PROPOSAL_LINKS,),
                                 after=proposal_entities_relink)
