-- Tools (src/catalog/entry-tools.ts, docs/relevance.md "Tools"): what a server or agent can do, tool by tool,
-- read from the card an entry carries inline (`data`) or that the crawler fetched from its `url`. Written by
-- the registry beside the entry, never part of the entry served: [{"name": ..., "description": ...}, ...].
ALTER TABLE entries ADD COLUMN tools jsonb NOT NULL DEFAULT '[]';

-- The tool names indexed: the entry's capabilities (as before), then the tools' names not among them.
CREATE FUNCTION ard_tool_names(capabilities text[], tools jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT capabilities || ARRAY(
    SELECT t->>'name' FROM jsonb_array_elements(tools) WITH ORDINALITY AS j(t, n)
    WHERE t->>'name' IS NOT NULL AND NOT (t->>'name' = ANY (capabilities)) ORDER BY n)
$$;

CREATE FUNCTION ard_tool_descriptions(tools jsonb) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(string_agg(t->>'description', E'\n' ORDER BY n), '')
  FROM jsonb_array_elements(tools) WITH ORDINALITY AS j(t, n)
$$;

-- Tool names weigh as capabilities (B); tool descriptions weight D (0.5 per occurrence, ard_weight_value), half
-- the entry's own description. Measured against C and against counting them in the length (LiveMCPBench, with
-- the repo sets unchanged): decision 0037.
CREATE OR REPLACE FUNCTION ard_entries_rank_doc() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  described tsvector;
BEGIN
  described := ard_rank_doc(NEW.display_name, NEW.description, NEW.tags, ard_tool_names(NEW.capabilities, NEW.tools))
               || setweight(to_tsvector('english', NEW.gloss), 'C');
  NEW.rank_doc := described || setweight(to_tsvector('english', ard_tool_descriptions(NEW.tools)), 'D');
  -- The length BM25 normalises by leaves the tool descriptions out: a server with 30 described tools would
  -- otherwise match its own name and description at a fraction of a short entry's (decision 0037).
  NEW.rank_length := ard_doc_length(described);
  NEW.term_doc := setweight(to_tsvector('simple', NEW.display_name), 'A')
               || setweight(to_tsvector('simple', NEW.search_text), 'D');
  SELECT t.lexemes, t.tf_name, t.tf_other INTO NEW.rank_lexemes, NEW.rank_tf_name, NEW.rank_tf_other
  FROM ard_rank_tf(NEW.rank_doc) AS t;
  RETURN NEW;
END $$;

-- The trigger now also fires when only the tools change (a re-fetched card, the entry unchanged).
DROP TRIGGER entries_rank_doc ON entries;
CREATE TRIGGER entries_rank_doc BEFORE INSERT OR UPDATE OF display_name, description, tags, capabilities, search_text, gloss, tools
  ON entries FOR EACH ROW EXECUTE FUNCTION ard_entries_rank_doc();
