// What the Alexandria contract (docs/reference/alexandria-api-contract-v0.txt) says a search result is for a library
// record, written out from the contract rather than taken from the implementation the tests check.
import type { AlexandriaRecord } from '../../src/alexandria/record';

export function contractResult(record: AlexandriaRecord, score: unknown): Record<string, unknown> {
  return {
    id: record.id,
    kind: record.kind,
    title: record.title,
    url: record.url,
    tags: record.tags,
    ...(record.date !== undefined ? { date: record.date } : {}),
    description: record.description,
    score,
    ...(record.sponsored ? { sponsored: true } : {}),
  };
}
