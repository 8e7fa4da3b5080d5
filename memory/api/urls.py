from django.urls import path, re_path

from memory.api import compiled as compiled_api
from memory.api import context, entities, events, health, observations, recall
from memory.api import memories as memories_api
from memory.api import root as root_api
from memory.api import working_set as working_set_api
from memory.models.working_set import SESSION_KEY_PATTERN

urlpatterns = [
    path("", root_api.ApiRootView.as_view(), name="api-root"),
    path("health/", health.HealthView.as_view(), name="health"),
    path("events/", events.EventsView.as_view(), name="events"),
    path("memories/", memories_api.MemoriesView.as_view(), name="memories"),
]

_SESSION = rf"^sessions/(?P<session_id>{SESSION_KEY_PATTERN})/working-set/"
urlpatterns += [
    re_path(_SESSION + r"$", working_set_api.WorkingSetView.as_view(), name="working-set"),
    re_path(_SESSION + r"register/$", working_set_api.WorkingSetRegisterView.as_view(),
            name="working-set-register"),
    re_path(_SESSION + r"recall/$", working_set_api.WorkingSetRecallView.as_view(),
            name="working-set-recall"),
    re_path(_SESSION + r"step/$", working_set_api.WorkingSetStepView.as_view(),
            name="working-set-step"),
]
urlpatterns += [
    path("observations/", observations.ObservationsView.as_view(), name="observations"),
    path("profile/", observations.ProfileView.as_view(), name="profile"),
]
urlpatterns += [
    path("recall/", recall.RecallView.as_view(), name="recall"),
    path("context/", context.ContextView.as_view(), name="context"),
    path("entities/", entities.EntitiesView.as_view(), name="entities"),
    re_path(r"^entities/(?P<key>.+)/feedback/$", entities.EntityFeedbackView.as_view(),
            name="entity-feedback"),
    re_path(r"^entities/(?P<key>.+)/pin/$", entities.EntityPinView.as_view(),
            name="entity-pin"),
    re_path(r"^entities/(?P<key>.+)/unpin/$", entities.EntityUnpinView.as_view(),
            name="entity-unpin"),
    re_path(r"^entities/(?P<key>.+)/$", entities.EntityView.as_view(), name="entity"),
]
urlpatterns += [
    path("rebuild/compiled/<path:key>/", compiled_api.CompiledRebuildView.as_view(),
         name="rebuild-compiled"),
]
