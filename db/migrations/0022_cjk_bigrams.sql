-- Chinese, Japanese and Korean text in the lexical documents (docs/relevance.md "Terms"). Those scripts put no
-- space between words, so PostgreSQL's parser read a whole run of them as one word: "获取微博热搜榜" was one lexeme,
-- and a query for 微博热搜 ("Weibo hot searches") matched nothing. A run now becomes its overlapping character
-- bigrams (获取 取微 微博 博热 热搜 搜榜), a single character itself, as Lucene's CJK analyser indexes them; the query
-- side does the same (src/search/query-text.ts tokenize: cjkWords, the same character class). Other text is
-- unchanged, so every document without these scripts stays exactly as it was.

-- The bigrams go after the text's other words: BM25 counts terms, not positions.
CREATE FUNCTION ard_cjk_bigrams(t text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN t !~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]' THEN t ELSE
    regexp_replace(t, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+', ' ', 'g') || ' ' || (
      SELECT string_agg(CASE WHEN length(m.run[1]) = 1 THEN m.run[1] ELSE
               (SELECT string_agg(substr(m.run[1], i, 2), ' ' ORDER BY i) FROM generate_series(1, length(m.run[1]) - 1) AS i) END,
             ' ' ORDER BY m.n)
      FROM regexp_matches(t, '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+', 'g') WITH ORDINALITY AS m(run, n))
  END
$$;

-- 0003's document, each field through ard_cjk_bigrams.
CREATE OR REPLACE FUNCTION ard_rank_doc(name text, description text, tags text[], capabilities text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector('english', ard_cjk_bigrams(coalesce(name, ''))), 'A')
      || setweight(to_tsvector('simple', ard_cjk_bigrams(coalesce(name, ''))), 'A')
      || setweight(to_tsvector('english', ard_cjk_bigrams(coalesce(array_to_string(tags, ' '), ''))), 'B')
      || setweight(to_tsvector('english', ard_cjk_bigrams(coalesce(array_to_string(
           ARRAY(SELECT regexp_replace(regexp_replace(c, '([a-z0-9])([A-Z])', '\1 \2', 'g'), '[_./-]+', ' ', 'g')
                 FROM unnest(capabilities) AS c), ' '), ''))), 'B')
      || setweight(to_tsvector('english', ard_cjk_bigrams(coalesce(description, ''))), 'C')
$$;

-- 0019's trigger function, the gloss, the tool descriptions and the vocabulary's words through ard_cjk_bigrams.
CREATE OR REPLACE FUNCTION ard_entries_rank_doc() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  described tsvector;
BEGIN
  described := ard_rank_doc(NEW.display_name, NEW.description, NEW.tags, ard_tool_names(NEW.capabilities, NEW.tools))
               || setweight(to_tsvector('english', ard_cjk_bigrams(NEW.gloss)), 'C');
  NEW.rank_doc := described || setweight(to_tsvector('english', ard_cjk_bigrams(ard_tool_descriptions(NEW.tools))), 'D');
  -- The length BM25 normalises by leaves the tool descriptions out (decision 0037).
  NEW.rank_length := ard_doc_length(described);
  NEW.term_doc := setweight(to_tsvector('simple', ard_cjk_bigrams(NEW.display_name)), 'A')
               || setweight(to_tsvector('simple', ard_cjk_bigrams(NEW.search_text)), 'D');
  SELECT t.lexemes, t.tf_name, t.tf_other INTO NEW.rank_lexemes, NEW.rank_tf_name, NEW.rank_tf_other
  FROM ard_rank_tf(NEW.rank_doc) AS t;
  RETURN NEW;
END $$;

-- The entries with such text get their documents again: naming display_name fires the row trigger above, and the
-- statement triggers apply the difference to the BM25 statistics, the vocabulary and the postings. The change feed
-- is not moved (the content hash is the same) and the facets do not change.
UPDATE entries SET display_name = display_name
WHERE concat_ws(' ', display_name, description, array_to_string(tags, ' '), array_to_string(capabilities, ' '), search_text, gloss,
                tools::text) ~ '[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]';
