from django.apps import AppConfig


class ActuationConfig(AppConfig):
    name = "actuation"
    verbose_name = "Actuation (proposals and approvals)"
