"""`cortex_tsq` keeps only the query's content words: a word that is a stopword in English
or in French ("le", "de", "the", "what") is dropped in both, so that a French question does
not match every English text through its articles, nor an English one every French text.
Each kept word matches its English or its French stem (docs/recall.md)."""

from django.db import migrations

QUERY = r"""
CREATE OR REPLACE FUNCTION cortex_tsq(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (
    SELECT coalesce(string_agg(DISTINCT quote_literal(lexeme), ' | ')::tsquery, ''::tsquery)
    FROM (SELECT unaccent(word) AS word
          FROM regexp_split_to_table(lower(coalesce(q, '')), '[^[:alnum:]]+') AS word
          WHERE word <> '') AS words,
         LATERAL (SELECT ts_lexize('english_stem', words.word) AS en,
                         ts_lexize('french_stem', words.word) AS fr) AS stems,
         LATERAL unnest(stems.en || stems.fr) AS lexeme
    WHERE cardinality(stems.en) > 0 AND cardinality(stems.fr) > 0
);
"""

PREVIOUS = r"""
CREATE OR REPLACE FUNCTION cortex_tsq(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN coalesce(
    cortex_tsq_any('cortex_en'::regconfig, q) || cortex_tsq_any('cortex_fr'::regconfig, q),
    cortex_tsq_any('cortex_en'::regconfig, q), cortex_tsq_any('cortex_fr'::regconfig, q),
    ''::tsquery);
"""


class Migration(migrations.Migration):
    dependencies = [("memory", "0014_context_ledger")]

    operations = [migrations.RunSQL(QUERY, PREVIOUS)]
