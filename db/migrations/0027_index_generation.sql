-- The index generation (decision 0049): a number that changes with every committed write to what a query text's
-- ranking reads (the entries and, through their triggers, the term statistics, postings and facets; the entries',
-- tools' and tags' vectors). A search process keeps the ranked lists it computed under the generation it read before
-- and after computing them (src/search/match-cache.ts), so another process's ingest, crawl or tombstone is seen by
-- the next search: the generation is read from the same database as the ranking (a replica's follows the primary's
-- with the rows it replays).
--
-- Written at commit, not at each statement: a writing statement marks its transaction (one row in
-- index_generation_marks, whatever the number of statements), and the mark's deferred trigger adds 1 to the one row
-- of index_generation as the transaction commits. Two writers then wait for each other only while committing, and
-- neither holds the row while it waits for another lock, so the counter cannot take part in a deadlock. A statement
-- that changes no row (an upsert of an unchanged entry) marks nothing.
CREATE TABLE index_generation (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  value bigint NOT NULL
);
INSERT INTO index_generation (value) VALUES (0);

CREATE TABLE index_generation_marks (
  txid xid8 PRIMARY KEY DEFAULT pg_current_xact_id()
);

CREATE FUNCTION ard_mark_index_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A TRUNCATE trigger has no transition table: the second condition is planned only when reached.
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO index_generation_marks DEFAULT VALUES ON CONFLICT DO NOTHING;
  ELSIF EXISTS (SELECT 1 FROM changed_rows) THEN
    INSERT INTO index_generation_marks DEFAULT VALUES ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION ard_bump_index_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE index_generation SET value = value + 1;
  DELETE FROM index_generation_marks WHERE txid = NEW.txid;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER index_generation_bump AFTER INSERT ON index_generation_marks
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ard_bump_index_generation();

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['entries', 'entry_vectors', 'tool_vectors', 'tag_vectors'] LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ard_mark_index_changed()', t || '_generation_insert', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ard_mark_index_changed()', t || '_generation_update', t);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ard_mark_index_changed()', t || '_generation_delete', t);
    EXECUTE format('CREATE TRIGGER %I AFTER TRUNCATE ON %I
      FOR EACH STATEMENT EXECUTE FUNCTION ard_mark_index_changed()', t || '_generation_truncate', t);
  END LOOP;
END $$;
