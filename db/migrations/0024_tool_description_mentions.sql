-- A word the tool descriptions repeat counts once (decision 0044, docs/relevance.md "Tools"). Tool descriptions
-- (weight D, 0.5 per mention) are left out of the length BM25 normalises by (0019), so nothing bounded how much a
-- server's many tools saying the same word added to it: a chart server with 25 tools, 16 of which "show" something and
-- 4 a "trend", outranked a trends server for "show me today's trending topics". Now the tool descriptions add 0.5 to a word's term
-- frequency when any of them says it, whatever the count; the entry's own fields count every mention as before.
CREATE OR REPLACE FUNCTION ard_rank_tf(doc tsvector, OUT lexemes text[], OUT tf_name real[], OUT tf_other real[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(u.lexeme ORDER BY u.lexeme), '{}'),
         coalesce(array_agg(coalesce(w.name, 0)::real ORDER BY u.lexeme), '{}'),
         coalesce(array_agg((coalesce(w.other, 0) + CASE WHEN w.tools THEN ard_weight_value('D') ELSE 0 END)::real
                            ORDER BY u.lexeme), '{}')
  FROM unnest(doc) AS u
  CROSS JOIN LATERAL (
    SELECT sum(ard_weight_value(x)) FILTER (WHERE x = 'A') AS name,
           sum(ard_weight_value(x)) FILTER (WHERE x NOT IN ('A', 'D')) AS other,
           bool_or(x = 'D') AS tools
    FROM unnest(u.weights) AS x) w
$$;

-- The entries with tools get their term frequencies again: naming tools fires the row trigger (0022), and the
-- statement triggers rewrite their postings. The BM25 statistics do not move (document frequencies and rank_length
-- are the same) nor does the change feed (the content hash is the same).
UPDATE entries SET tools = tools WHERE tools <> '[]'::jsonb;
