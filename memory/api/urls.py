from django.urls import path

from memory.api import health

urlpatterns = [
    path("health/", health.HealthView.as_view(), name="health"),
]
