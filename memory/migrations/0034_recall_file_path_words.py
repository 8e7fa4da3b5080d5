"""A name that is a path is also matched by its parts: `cortex_names` (the text full-text
search reads for an entity's names, migration 0013) adds, for a name with a "/", the path
with its slashes as spaces ("billing-api src auth.py") and its base name's words ("auth
py"). PostgreSQL's parser keeps "/src/auth.py" as one file token, so the file was not found
by "auth.py" or by "the auth module of billing-api" (bench/path_vectors.py, vectors off:
recall@5 0.070 and 0.093 before, 1.000 and 1.000 after).

The function is immutable: the expression index and the stored names
(`memory_entitysearch`, migration 0020) are rebuilt with it.
"""

from django.db import migrations

NAMES = """
CREATE OR REPLACE FUNCTION cortex_names(display_name text, aliases varchar[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN coalesce(display_name, '') || ' ' || coalesce(array_to_string(aliases, ' '), '')
    {path_words};
"""
PATH_WORDS = """|| CASE WHEN strpos(display_name, '/') > 0
           THEN ' ' || translate(display_name, '/', ' ') || ' '
                || translate(regexp_replace(display_name, '^.*/', ''), '._-', '   ')
           ELSE '' END"""
REBUILD = """
REINDEX INDEX entity_names_search;
UPDATE memory_entitysearch AS s SET search = cortex_tsv(cortex_names(e.display_name, e.aliases))
FROM memory_entity AS e WHERE e.id = s.entity_id;
"""


class Migration(migrations.Migration):

    dependencies = [
        ("memory", "0033_compiled_truth_search_column_index"),
    ]

    operations = [
        migrations.RunSQL(NAMES.format(path_words=PATH_WORDS) + REBUILD,
                          NAMES.format(path_words="") + REBUILD),
    ]
