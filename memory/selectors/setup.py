"""Whether the database is ready for Cortex: every migration on disk applied, a taxonomy."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from django.apps import apps
from django.db import connection

_MIGRATION_FILE = re.compile(r"^(\d{4}_\w+)\.py$")
OWN_APPS = ("memory", "insight", "actuation")  # a newer Cortex adds migrations to these


def _migrations_on_disk() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for app in apps.get_app_configs():
        try:
            spec = importlib.util.find_spec(f"{app.name}.migrations")
        except ModuleNotFoundError:
            continue
        for location in (spec.submodule_search_locations or []) if spec else []:
            for path in Path(location).iterdir():
                if match := _MIGRATION_FILE.match(path.name):
                    found.add((app.label, match.group(1)))
    return found


def _migrations_applied() -> set[tuple[str, str]] | None:
    """None when Django's migration table does not exist yet."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('django_migrations') IS NOT NULL")
        row = cursor.fetchone()
        if not row or not row[0]:
            return None
        cursor.execute("SELECT app, name FROM django_migrations")
        return {(str(app), str(name)) for app, name in cursor.fetchall()}


def _taxonomy_present() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM memory_namespace)")
        row = cursor.fetchone()
        return bool(row and row[0])


def migrations_unknown() -> list[str]:
    """The migrations of Cortex's own apps applied to this database that this code does not
    have, as "app name": a newer Cortex migrated it. (A library's migrations are not
    compared: a new version of one may delete files it squashed.)"""
    applied = _migrations_applied() or set()
    return sorted(f"{app} {name}" for app, name in applied - _migrations_on_disk()
                  if app in OWN_APPS)


def migrations_pending() -> list[str]:
    """The migration files this code has that the database has not applied, as "app name"."""
    applied = _migrations_applied() or set()
    return sorted(f"{app} {name}" for app, name in _migrations_on_disk() - applied)


def cortex_ready() -> bool:
    """True when `cortex_prepare` has nothing to do but its idempotent checks: every
    migration file applied and the namespace tree synced at least once."""
    applied = _migrations_applied()
    if applied is None or not _migrations_on_disk() <= applied:
        return False
    return _taxonomy_present()


def extensions_available(names: list[str]) -> dict[str, str]:
    """Of the PostgreSQL extensions `names`, those this server has installed or can install
    (its machine has the package that ships it), each with its version: the installed one,
    else the one CREATE EXTENSION would install."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT name, coalesce(installed_version, default_version) "
                       "FROM pg_available_extensions WHERE name = ANY(%s)", [names])
        return {str(name): str(version) for name, version in cursor.fetchall()}


def server_major_version() -> int:
    """The PostgreSQL server's major version (15 for 15.19)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('server_version_num')::int / 10000")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@dataclass(frozen=True)
class Uncreatable:
    role: str
    database: str
    extensions: list[str]


def extensions_uncreatable(names: list[str]) -> Uncreatable:
    """Of the extensions `names` this server has and this database does not, those the
    connected role may not create: it is not a superuser, and the extension needs one (not
    trusted) or the role lacks CREATE on the database."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, current_database(), "
            "coalesce(array_agg(e.name ORDER BY e.name), '{}') "
            "FROM pg_available_extensions e "
            "JOIN pg_available_extension_versions v "
            "  ON v.name = e.name AND v.version = e.default_version "
            "WHERE e.name = ANY(%s) AND e.installed_version IS NULL "
            "  AND NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
            "  AND NOT ((v.trusted OR NOT v.superuser) "
            "           AND has_database_privilege(current_database(), 'CREATE'))",
            [names])
        role, database, found = cursor.fetchone() or ("", "", [])
    return Uncreatable(role=str(role), database=str(database), extensions=list(found))
