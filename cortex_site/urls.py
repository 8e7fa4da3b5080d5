from django.contrib import admin
from django.urls import include, path, re_path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from memory.mcp.http import mcp_view

admin.autodiscover()  # SimpleAdminConfig (cortex_site/settings.py): here, not at setup

handler404 = "cortex_site.api_errors.handler404"
handler500 = "cortex_site.api_errors.handler500"

urlpatterns = [
    # The admin's "View site" and a bare host lead to the operator's console.
    path("", RedirectView.as_view(pattern_name="admin:index", permanent=False), name="home"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("api/proposals/", include("actuation.api.urls")),
    path("api/", include("memory.api.urls")),
    re_path(r"^mcp/?$", mcp_view, name="mcp"),
]
