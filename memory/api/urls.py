from django.urls import path

from memory.api import events, health

urlpatterns = [
    path("health/", health.HealthView.as_view(), name="health"),
    path("events/", events.EventsView.as_view(), name="events"),
]
