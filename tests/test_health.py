import pytest
from rest_framework.test import APIClient


@pytest.mark.django_db
def test_health_reports_database_and_broker() -> None:
    response = APIClient().get("/api/health/")
    assert response.status_code == 200
    assert response.json()["database"] is True
    assert response.json()["broker"] is True


@pytest.mark.django_db
def test_unknown_api_path_uses_the_error_shape() -> None:
    response = APIClient().get("/api/nope/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
