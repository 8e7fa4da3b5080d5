"""Cortex as an operator runs it, without internet: the API docs load their assets from Cortex
itself, and the URLs `cortex up` prints and the admin links to answer."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

# Every URL an HTML page makes the browser load or link to.
_REFERENCES = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")
_ANY_URL = re.compile(r"""["'(]((?:https?:)?//[^"')\s]+)""")


@pytest.fixture
def operator_client(db: None) -> Client:
    user = get_user_model().objects.create_user("op", password="pw-for-tests", is_staff=True,
                                                is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def test_the_docs_page_references_no_other_host_and_its_assets_answer(client: Client) -> None:
    response = client.get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    external = [url for url in _ANY_URL.findall(html) if urlsplit(url).netloc
                not in ("", "testserver")]
    assert external == [], f"the docs page loads from other hosts: {external}"
    assets = [url for url in _REFERENCES.findall(html) if url.startswith("/")]
    assert any(url.endswith("swagger-ui-bundle.js") for url in assets), assets
    assert any(url.endswith("swagger-ui.css") for url in assets), assets
    for url in assets:
        asset = client.get(url)
        assert asset.status_code == 200, url
        body = b"".join(asset.streaming_content) if asset.streaming else asset.content  # type: ignore[attr-defined]
        assert body, url
        if url.endswith("swagger-ui-bundle.js"):
            assert len(body) > 100_000  # the real bundle, not a placeholder
    # Swagger UI's own default sends the schema to validator.swagger.io for a badge.
    assert '"validatorUrl": null' in html


@pytest.mark.django_db
def test_the_api_root_lists_its_endpoints(client: Client) -> None:
    response = client.get("/api/")
    assert response.status_code == 200
    body = response.json()
    listed = {e["path"]: e["methods"] for e in body["endpoints"]}
    # The README's table, independently of the URLconf the view reads.
    expected = {
        "/api/health/": ["GET"], "/api/events/": ["GET", "POST"],
        "/api/memories/": ["GET", "POST"], "/api/observations/": ["POST"],
        "/api/recall/": ["GET"], "/api/context/": ["POST"], "/api/entities/": ["GET"],
        "/api/entities/<key>/": ["GET"], "/api/entities/<key>/feedback/": ["POST"],
        "/api/entities/<key>/pin/": ["POST"], "/api/entities/<key>/unpin/": ["POST"],
        "/api/rebuild/compiled/<key>/": ["POST"], "/api/proposals/": ["GET"],
        "/api/proposals/<proposal_id>/approve/": ["POST"],
        "/api/proposals/<proposal_id>/reject/": ["POST"], "/api/profile/": ["GET"],
        "/api/sessions/<session_id>/working-set/": ["GET"],
        "/api/sessions/<session_id>/working-set/recall/": ["POST"],
    }
    for path, methods in expected.items():
        assert path in listed, f"{path} missing from {sorted(listed)}"
        assert set(methods) <= set(listed[path]), (path, listed[path])
    assert "/api/" not in listed and "/api/docs/" not in listed
    for link in ("docs", "schema", "console"):
        assert client.get(body[link]).status_code in (200, 302), link


@pytest.mark.django_db
def test_every_listed_endpoint_without_a_parameter_exists(client: Client) -> None:
    for endpoint in client.get("/api/").json()["endpoints"]:
        if "<" in endpoint["path"]:
            continue
        method = endpoint["methods"][0].lower()
        status = getattr(client, method)(endpoint["path"]).status_code
        assert status != 404, endpoint  # 200, or 401/403 without a token: never unknown


def test_the_site_root_leads_to_the_console(operator_client: Client) -> None:
    response = operator_client.get("/")
    assert response.status_code == 302
    assert response["Location"] == "/admin/"
    assert operator_client.get("/", follow=True).status_code == 200


def test_the_admin_view_site_link_answers(operator_client: Client) -> None:
    page = operator_client.get("/admin/").content.decode()
    view_site = re.search(r'<a href="([^"]+)">View site</a>', page)
    assert view_site is not None
    assert operator_client.get(view_site.group(1), follow=True).status_code == 200
