"""A PostgreSQL server without an extension the migrations create (an operator's own server
without pgvector) is refused before any migration runs, in one line that says what to
install and where; nothing is changed."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import connection

from memory.selectors.setup import extensions_available, extensions_uncreatable
from memory.services.preflight import MigrationRefused, extensions_check

REPO = Path(__file__).resolve().parents[1]
CORTEX = shutil.which("cortex") or str(Path(sys.executable).parent / "cortex")
# The machine's own PostgreSQL (Debian's, without pgvector), where there is one.
OTHER_SERVER = os.environ.get("CORTEX_TEST_OTHER_POSTGRES", "postgresql://postgres@127.0.0.1:5432")

pytestmark = pytest.mark.django_db


def _major() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        (version,) = cursor.fetchone() or ("0",)
    return int(str(version).split(".")[0])


# What the embedded server has, as extensions_available gives it.
EVERY = {"vector": "0.8.0", "pg_trgm": "1.6", "unaccent": "1.1"}


def test_the_extensions_this_server_has_are_available_with_their_version() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT extname, extversion FROM pg_extension")
        installed = dict(cursor.fetchall())
    found = extensions_available(["vector", "pg_trgm", "unaccent", "cortex_no_such_extension"])
    assert found == {name: installed[name] for name in ("vector", "pg_trgm", "unaccent")}


def test_a_missing_extension_is_refused_with_what_ships_it() -> None:
    with pytest.raises(MigrationRefused) as refused:
        extensions_check(pending=["memory 0001_extensions"],
                         available={"pg_trgm": "1.6", "unaccent": "1.1"})
    said = refused.value.describe()
    assert said.startswith(f"this PostgreSQL server ({_major()}) lacks the extension vector ")
    assert f"install pgvector 0.8 or later (postgresql-{_major()}-pgvector) on its" in said
    assert "leave DATABASE_URL unset" in said and said.endswith("nothing was changed")


def test_a_pgvector_older_than_recall_reads_is_refused_with_its_version() -> None:
    with pytest.raises(MigrationRefused) as refused:
        extensions_check(pending=["memory 0001_extensions"], available={**EVERY,
                                                                       "vector": "0.7.4"})
    assert "lacks the extension vector (it has 0.7.4) that" in refused.value.describe()
    extensions_check(pending=["memory 0001_extensions"], available={**EVERY, "vector": "0.10.0"})


def test_two_contrib_extensions_name_their_package_once() -> None:
    with pytest.raises(MigrationRefused) as refused:
        extensions_check(pending=["memory 0011_text_search"], available={"vector": "0.8.1"})
    said = refused.value.describe()
    assert "lacks the extensions pg_trgm, unaccent that" in said
    assert said.count("postgresql-contrib") == 1


def test_nothing_to_migrate_or_nothing_missing_is_not_refused() -> None:
    extensions_check(pending=[], available={})
    extensions_check(pending=["memory 0001_extensions"], available=EVERY)
    extensions_check(pending=["memory 0001_extensions"])  # this server has them


@pytest.fixture
def other_database() -> Iterator[str]:
    """A new database on the machine's other PostgreSQL when it lacks pgvector."""
    try:
        admin = psycopg.connect(f"{OTHER_SERVER}/postgres", autocommit=True, connect_timeout=3)
    except psycopg.OperationalError:
        pytest.skip(f"no PostgreSQL at {OTHER_SERVER}")
    with admin:
        if admin.execute("SELECT 1 FROM pg_available_extensions "
                         "WHERE name = 'vector'").fetchone():
            pytest.skip(f"the PostgreSQL at {OTHER_SERVER} has pgvector")
        name = f"cortex_no_pgvector_{uuid.uuid4().hex[:8]}"
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{OTHER_SERVER}/{name}"
        finally:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _refused(database_url: str, home: Path) -> str:
    """`cortex remember` on this database: exit 1, one line (returned), no table created."""
    env = {**os.environ, "DATABASE_URL": database_url, "CORTEX_HOME": str(home)}
    done = subprocess.run([CORTEX, "remember", "this must not be written"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n "
                            "ON n.oid = c.relnamespace WHERE n.nspname = 'public'"
                            ).fetchone() == (0,)
    return done.stderr


def test_a_server_without_pgvector_is_refused_in_one_line_nothing_created(
        other_database: str, tmp_path: Path) -> None:
    said = _refused(other_database, tmp_path)
    assert "lacks the extension vector that Cortex needs: install pgvector" in said


def _role_set(name: str | None) -> None:
    with connection.cursor() as cursor:
        cursor.execute(f'SET LOCAL ROLE "{name}"' if name else "RESET ROLE")


@pytest.fixture
def plain_role() -> Iterator[str]:
    """A role that is not a superuser, this test's transaction's (rolled back with it)."""
    name = f"cortex_plain_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{name}" NOSUPERUSER')
    yield name
    _role_set(None)


def test_an_extension_a_plain_role_may_not_create_is_named(plain_role: str) -> None:
    # dblink needs a superuser; hstore is trusted: CREATE on the database is enough; vector
    # is installed in this database already.
    names = ["dblink", "hstore", "vector"]
    _role_set(plain_role)
    found = extensions_uncreatable(names)
    assert (found.role, found.database) == (plain_role, connection.settings_dict["NAME"])
    assert found.extensions == ["dblink", "hstore"]
    _role_set(None)
    with connection.cursor() as cursor:
        cursor.execute(f'GRANT CREATE ON DATABASE "{found.database}" TO "{plain_role}"')
    _role_set(plain_role)
    assert extensions_uncreatable(names).extensions == ["dblink"]
    _role_set(None)
    assert extensions_uncreatable(names).extensions == []


@pytest.fixture
def plain_database() -> Iterator[str]:
    """A new database owned by a new role that is not a superuser, on this server."""
    params = connection.get_connection_params()
    server = {key: params[key] for key in ("host", "port", "user", "password") if params.get(key)}
    admin = psycopg.connect(**server, dbname="postgres", autocommit=True)
    name = f"cortex_plain_{uuid.uuid4().hex[:8]}"
    with admin:
        admin.execute(f'CREATE ROLE "{name}" LOGIN NOSUPERUSER')
        admin.execute(f'CREATE DATABASE "{name}" OWNER "{name}"')
        try:
            port = f":{server['port']}" if "port" in server else ""
            yield f"postgresql://{name}@{port}/{name}?host={server.get('host', '')}"
        finally:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            admin.execute(f'DROP ROLE "{name}"')


def test_a_role_that_may_not_create_pgvector_is_refused_in_one_line_nothing_created(
        plain_database: str, tmp_path: Path) -> None:
    said = _refused(plain_database, tmp_path)
    role = plain_database.split("@")[0].rsplit("/", 1)[-1]
    assert (f"the role {role} may not create the extension vector that Cortex needs: have a "
            f"superuser run `CREATE EXTENSION vector;` in the database {role}, ") in said
