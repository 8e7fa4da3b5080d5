"""`cortex_tsq` also drops the French function and question words PostgreSQL's French
stopword list lacks ("les", "cette", "quel", "comment", ...), as the English list already
drops "the", "which" and "how": otherwise a French question matches every text holding
"les" (docs/recall.md)."""

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
      AND words.word <> ALL (ARRAY['les', 'leurs', 'cette', 'cet', 'ces', 'ils', 'elles',
                                   'donc', 'comment', 'quel', 'quelle', 'quels', 'quelles',
                                   'quand', 'pourquoi', 'avoir', 'etre'])
);
"""

PREVIOUS = QUERY.split("      AND words.word <> ALL")[0] + ");\n"


class Migration(migrations.Migration):
    dependencies = [("memory", "0018_event_payload_compression")]

    operations = [migrations.RunSQL(QUERY, PREVIOUS)]
