"""What recall searches (docs/recall.md): SQL functions shared by every text index and query,
and the indexes of the entity-side strategies.

- `cortex_tsv(text)`: the document vector, English and French stems of unaccented words;
- `cortex_tsq(text)`: a query matching ANY of its words' stems in either language (ranking,
  not filtering, decides: a paraphrase shares some words, rarely all);
- `cortex_names(display_name, aliases)`: an entity's names as one text (array_to_string is
  only STABLE; on a varchar[] it does not depend on any setting, so the wrapper is IMMUTABLE).
"""

from django.db import migrations

FUNCTIONS = r"""
CREATE FUNCTION cortex_names(display_name text, aliases varchar[]) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN coalesce(display_name, '') || ' ' || coalesce(array_to_string(aliases, ' '), '');

CREATE FUNCTION cortex_tsv(doc text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_tsvector('cortex_en'::regconfig, coalesce(doc, ''))
    || to_tsvector('cortex_fr'::regconfig, coalesce(doc, ''));

CREATE FUNCTION cortex_tsq_any(config regconfig, q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN nullif(replace(plainto_tsquery(config, coalesce(q, ''))::text, ' & ', ' | '), '')::tsquery;

CREATE FUNCTION cortex_tsq(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN coalesce(cortex_tsq_any('cortex_en'::regconfig, q) || cortex_tsq_any('cortex_fr'::regconfig, q),
                cortex_tsq_any('cortex_en'::regconfig, q), cortex_tsq_any('cortex_fr'::regconfig, q),
                ''::tsquery);
"""

DROP_FUNCTIONS = """
DROP FUNCTION cortex_tsq(text); DROP FUNCTION cortex_tsq_any(regconfig, text);
DROP FUNCTION cortex_tsv(text); DROP FUNCTION cortex_names(text, varchar[]);
"""

INDEXES = {
    "entity_names_search":
        "memory_entity USING gin (cortex_tsv(cortex_names(display_name, aliases)))",
    "fact_claim_search": "memory_fact USING gin (cortex_tsv(claim))",
    "entity_alias_trigram": "memory_entityalias USING gin (normalized gin_trgm_ops)",
}


class Migration(migrations.Migration):
    dependencies = [("memory", "0011_memories")]

    operations = [
        migrations.RunSQL(FUNCTIONS, DROP_FUNCTIONS),
        *(migrations.RunSQL(f"CREATE INDEX {name} ON {target}", f"DROP INDEX {name}")
          for name, target in INDEXES.items()),
    ]
