-- The product glossary (src/catalog/product-glossary.ts, docs/relevance.md "Product glossary"): an entry
-- that names a product the glossary knows is indexed with the product's plain-language gloss, so that a need
-- said in everyday words finds an entry that says little more than the product's name.
--
-- `gloss` holds the glosses that apply to the entry, written by the registry (never by a publisher): at
-- ingestion, and by the glossary refresh when the glossary changes (src/embedding/gloss-refresh.ts; rows
-- start empty here and are filled by that refresh at the next start). In the lexical document the gloss is
-- weight C, the description's (1 per occurrence, ard_weight_value): what the entry's products are, said as a
-- description would. Measured against D (0.5), B (2, the tags') and against counting a word an entry holds
-- only in its gloss as a guess (gated by semantic agreement): docs/relevance.md, "Product glossary".
ALTER TABLE entries ADD COLUMN gloss text NOT NULL DEFAULT '';

CREATE OR REPLACE FUNCTION ard_entries_rank_doc() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.rank_doc := ard_rank_doc(NEW.display_name, NEW.description, NEW.tags, NEW.capabilities)
               || setweight(to_tsvector('english', NEW.gloss), 'C');
  NEW.rank_length := ard_doc_length(NEW.rank_doc);
  NEW.term_doc := setweight(to_tsvector('simple', NEW.display_name), 'A')
               || setweight(to_tsvector('simple', NEW.search_text), 'D');
  SELECT t.lexemes, t.tf_name, t.tf_other INTO NEW.rank_lexemes, NEW.rank_tf_name, NEW.rank_tf_other
  FROM ard_rank_tf(NEW.rank_doc) AS t;
  RETURN NEW;
END $$;

-- The trigger now also fires when only the gloss changes (the refresh writes nothing else).
DROP TRIGGER entries_rank_doc ON entries;
CREATE TRIGGER entries_rank_doc BEFORE INSERT OR UPDATE OF display_name, description, tags, capabilities, search_text, gloss
  ON entries FOR EACH ROW EXECUTE FUNCTION ard_entries_rank_doc();
