"""Recall ranks names, claims and compiled truths by their stored text vectors instead of
parsing every matched row again (`cortex_tsv` costs 50 µs for a name, 250 µs for a compiled
truth: with a thousand rows matched, most of a recall; bench/recall_latency.py).

- `memory_fact.search`, `memory_compiledtruth.search`: `cortex_tsv` of the claim and of the
  markdown, stored generated columns (rows rarely written again; the models do not name them);
- `memory_entitysearch`: an entity's names as `cortex_tsv(cortex_names(display_name,
  aliases))`, one row per entity, kept by triggers when the names are written (a table of its
  own: entities are written often, their strength, and these are only read by recall), and
  emptied with the entities.

Matching still goes through the expression indexes of 0013 (their statistics choose a
query's stems, memory/selectors/recall_terms.py); the stored vectors only rank.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE memory_fact
    ADD COLUMN search tsvector GENERATED ALWAYS AS (cortex_tsv(claim::text)) STORED;
ALTER TABLE memory_compiledtruth
    ADD COLUMN search tsvector GENERATED ALWAYS AS (cortex_tsv(markdown)) STORED;

CREATE TABLE memory_entitysearch (
    entity_id bigint PRIMARY KEY,
    search tsvector NOT NULL
);
INSERT INTO memory_entitysearch (entity_id, search)
SELECT id, cortex_tsv(cortex_names(display_name, aliases)) FROM memory_entity;

CREATE FUNCTION cortex_entity_search_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO memory_entitysearch (entity_id, search)
    VALUES (NEW.id, cortex_tsv(cortex_names(NEW.display_name, NEW.aliases)))
    ON CONFLICT (entity_id) DO UPDATE SET search = EXCLUDED.search;
    RETURN NULL;
END $$;

CREATE FUNCTION cortex_entity_search_empty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE memory_entitysearch;
    RETURN NULL;
END $$;

CREATE TRIGGER entity_search_insert AFTER INSERT ON memory_entity
    FOR EACH ROW EXECUTE FUNCTION cortex_entity_search_keep();
CREATE TRIGGER entity_search_update AFTER UPDATE OF display_name, aliases ON memory_entity
    FOR EACH ROW WHEN (OLD.display_name IS DISTINCT FROM NEW.display_name
                       OR OLD.aliases IS DISTINCT FROM NEW.aliases)
    EXECUTE FUNCTION cortex_entity_search_keep();
CREATE TRIGGER entity_search_truncate AFTER TRUNCATE ON memory_entity
    FOR EACH STATEMENT EXECUTE FUNCTION cortex_entity_search_empty();
"""

BACKWARD = r"""
DROP TRIGGER entity_search_truncate ON memory_entity;
DROP TRIGGER entity_search_update ON memory_entity;
DROP TRIGGER entity_search_insert ON memory_entity;
DROP FUNCTION cortex_entity_search_empty();
DROP FUNCTION cortex_entity_search_keep();
DROP TABLE memory_entitysearch;
ALTER TABLE memory_compiledtruth DROP COLUMN search;
ALTER TABLE memory_fact DROP COLUMN search;
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0019_recall_query_french_words")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
