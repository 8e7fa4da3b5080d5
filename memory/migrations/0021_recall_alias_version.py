"""`memory_aliasversion`: one row whose `version` changes, in the same transaction, with every
statement that writes entity aliases (a statement-level trigger; the values come from a
sequence, so a rolled-back write never leaves a value that is seen again).

Recall keeps, per process, the aliases each trigram gram matched (memory/selectors/recall.py):
they are valid while the version a recall reads in its own statement is the one they were
read at, and read again otherwise. Aliases are written by the Retain Job's flush (under its
lock) and emptied by a rebuild, so the row is never contended.
"""

from django.db import migrations

FORWARD = r"""
CREATE SEQUENCE memory_aliasversion_seq;
CREATE TABLE memory_aliasversion (
    id smallint PRIMARY KEY CHECK (id = 1),
    version bigint NOT NULL
);
INSERT INTO memory_aliasversion (id, version) VALUES (1, nextval('memory_aliasversion_seq'));

CREATE FUNCTION cortex_alias_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE memory_aliasversion SET version = nextval('memory_aliasversion_seq') WHERE id = 1;
    RETURN NULL;
END $$;

CREATE TRIGGER alias_version_bump
    AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON memory_entityalias
    FOR EACH STATEMENT EXECUTE FUNCTION cortex_alias_version_bump();
"""

BACKWARD = r"""
DROP TRIGGER alias_version_bump ON memory_entityalias;
DROP FUNCTION cortex_alias_version_bump();
DROP TABLE memory_aliasversion;
DROP SEQUENCE memory_aliasversion_seq;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0020_recall_stored_text_vectors")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
