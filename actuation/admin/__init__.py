"""The approval queue and the target repositories, in the admin."""

from actuation.admin import dashboard, proposals, repositories  # noqa: F401
