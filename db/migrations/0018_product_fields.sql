-- What makes two entries the same product, kept beside the entry (docs/relevance.md "One product, one result",
-- decision 0036): the fields src/catalog/product-keys.ts reads (repository, directory, image, remote endpoint, an
-- inline server card's repository, packages and remotes), as a small jsonb written with the entry. Search reads it
-- for every entry of a ranked list; extracting the same fields from `entry` at query time decompresses each entry
-- once per field: 14 ms for 300 entries, where this column is read in about 1 ms.
--
-- jsonb_build_object is STABLE only because of its "any" arguments' text forms; over jsonb values, as here, it
-- depends on no setting, so the wrapper is IMMUTABLE and may define a generated column.
CREATE FUNCTION ard_product_fields(entry jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(
    'url', entry->'url',
    'metadata', jsonb_build_object(
      'repositoryUrl', entry#>'{metadata,repositoryUrl}', 'repository', entry#>'{metadata,repository}',
      'sourceDirectory', entry#>'{metadata,sourceDirectory}', 'image', entry#>'{metadata,image}',
      'remoteUrl', entry#>'{metadata,remoteUrl}'),
    'data', jsonb_build_object(
      'repository', entry#>'{data,repository}', 'packages', entry#>'{data,packages}', 'remotes', entry#>'{data,remotes}')))
$$;

-- Filled for the existing rows while the table is rewritten, without firing row triggers.
ALTER TABLE entries ADD COLUMN product_fields jsonb GENERATED ALWAYS AS (ard_product_fields(entry)) STORED;
