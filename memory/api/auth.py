"""Knox token authentication that loads the agent with the user, in one query."""

from __future__ import annotations

import binascii
from hmac import compare_digest
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from knox.auth import TokenAuthentication
from knox.crypto import hash_token
from knox.settings import CONSTANTS
from rest_framework import exceptions

from memory.selectors.tokens import token_candidates


class AgentTokenAuthentication(TokenAuthentication):  # type: ignore[misc]  # knox is untyped
    """Knox's checks (hashed token, expiry, active user) without its per-request sweep of every
    other token of the user; expired tokens are refused (and removed) when presented."""

    def authenticate_credentials(self, token: bytes) -> tuple[Any, Any]:
        message = _("Invalid token.")
        try:
            text = token.decode("utf-8")
            digest = hash_token(text)
        except (UnicodeDecodeError, TypeError, binascii.Error) as error:
            raise exceptions.AuthenticationFailed(message) from error
        for auth_token in token_candidates(token_key=text[: CONSTANTS.TOKEN_KEY_LENGTH]):
            if not compare_digest(digest, auth_token.digest):
                continue
            if auth_token.expiry is not None and auth_token.expiry < timezone.now():
                auth_token.delete()
                raise exceptions.AuthenticationFailed(_("Token expired."))
            user_and_token: tuple[Any, Any] = self.validate_user(auth_token)
            return user_and_token
        raise exceptions.AuthenticationFailed(message)


class AgentTokenScheme(OpenApiAuthenticationExtension):
    """How the OpenAPI schema documents the token header."""

    target_class = "memory.api.auth.AgentTokenAuthentication"
    name = "agentToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <token>`, as printed by `cortex agent create`.",
        }
