from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction


@dataclass(frozen=True)
class Credentials:
    username: str
    password: str


@transaction.atomic
def operator_ensure(*, username: str = "operator") -> Credentials | None:
    """Create the first operator account, once. Returns its credentials only when just created."""
    User = get_user_model()
    if User.objects.filter(is_superuser=True).exists():
        return None
    password = secrets.token_urlsafe(16)
    User.objects.create_superuser(username=username, email="", password=password)
    return Credentials(username=username, password=password)
