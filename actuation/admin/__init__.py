"""The approval queue and the target repositories, in the admin."""

from actuation.admin import proposals, repositories  # noqa: F401
