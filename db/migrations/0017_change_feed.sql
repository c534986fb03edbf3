-- The change feed (GET /changes) and mirrored entries (docs/federation.md "Mirroring", decision 0029).
--
-- `change_seq` orders the writes of `entries`: every insert, every change of content (`content_hash`),
-- of tombstone (`deleted_at`) or of owner (`mirror_peer`) takes the next value of `entries_change_seq`.
-- Other updates (a gloss refresh) keep it. Every statement that writes `entries` first takes a
-- transaction-scoped advisory lock, held until commit, so writers of `entries` take their sequence
-- numbers in commit order: a reader's snapshot always sees a prefix of the sequence, and a feed page
-- that ends at N never misses a change with a number below N committed later. The lock is taken before
-- the statement touches a row (a statement trigger), so it always comes before the row locks and two
-- writers cannot deadlock on it. The statement triggers of `entries` (statistics, facets, postings)
-- already serialise its writers on the `corpus_stats` row, so the lock costs no concurrency that was there.
--
-- `mirror_peer` is the base URL of the peer whose change feed an entry was copied from (PEERS_MIRROR);
-- null for this registry's own entries. The feed lists own entries only: a mirror does not republish.

ALTER TABLE entries ADD COLUMN mirror_peer text;

CREATE SEQUENCE entries_change_seq AS bigint;
-- A volatile default fills the existing rows while the table is rewritten, without firing row triggers.
ALTER TABLE entries ADD COLUMN change_seq bigint NOT NULL DEFAULT nextval('entries_change_seq');
ALTER SEQUENCE entries_change_seq OWNED BY entries.change_seq;

CREATE FUNCTION ard_entries_change_lock() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Two-key form: a space of its own (the migration lock uses the one-key form).
  PERFORM pg_advisory_xact_lock(1095910212, 17);
  RETURN NULL;
END $$;

CREATE TRIGGER entries_change_lock BEFORE INSERT OR UPDATE OR DELETE ON entries
  FOR EACH STATEMENT EXECUTE FUNCTION ard_entries_change_lock();

CREATE FUNCTION ard_entries_change_seq() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT'
     OR NEW.content_hash IS DISTINCT FROM OLD.content_hash
     OR NEW.deleted_at IS DISTINCT FROM OLD.deleted_at
     OR NEW.mirror_peer IS DISTINCT FROM OLD.mirror_peer THEN
    NEW.change_seq := nextval('entries_change_seq');
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER entries_change_seq BEFORE INSERT OR UPDATE ON entries
  FOR EACH ROW EXECUTE FUNCTION ard_entries_change_seq();

CREATE INDEX entries_own_changes ON entries (change_seq) WHERE mirror_peer IS NULL;
CREATE INDEX entries_mirrored ON entries (mirror_peer) WHERE mirror_peer IS NOT NULL AND deleted_at IS NULL;

-- One row per mirrored peer: where its feed is read from next and what the last sync did.
CREATE TABLE mirror_peers (
  peer text PRIMARY KEY,
  cursor text,
  last_sync_at timestamptz,
  last_status text,
  last_error text,
  last_report jsonb
);
