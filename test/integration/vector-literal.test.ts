import pg from 'pg';
import { toVectorLiteral } from '../../src/db/vector-literal';
import { normalise } from '../../src/embedding/embedder';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database';

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase({ withDemoCorpus: true });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await database.drop();
});

/** pgvector's reading of each literal, as the text PostgreSQL prints for the stored vector. */
async function stored(literals: string[]): Promise<string[]> {
  const { rows } = await client.query<{ v: string }>('SELECT v::vector::text AS v FROM unnest($1::text[]) AS t(v)', [literals]);
  return rows.map((r) => r.v);
}

describe('toVectorLiteral', () => {
  it("PostgreSQL reads the same vector from it as from JavaScript's shortest form, written shorter", async () => {
    // Vectors as the models give them (float32 values), the same normalised to length 1 as the embedders store them
    // (doubles), and the edge cases.
    const float32s = Array.from({ length: 40 }, (_, k) => Array.from({ length: 512 }, (_, i) => Math.fround(Math.sin(k * 512 + i) / 8)));
    const doubles = float32s.map(normalise);
    const edges = [[0, -0, 1, -1, 1e-7, -3.4e-12, 123456.789, 0.1, 1 / 3, 2 ** -20]];
    const vectors = [...float32s, ...doubles, ...edges];
    const before = await stored(vectors.map((v) => `[${v.join(',')}]`));
    const after = await stored(vectors.map(toVectorLiteral));
    expect(after).toEqual(before);
    // The bundled model's vectors are float32s: their literal is at least a quarter shorter.
    for (const v of float32s) expect(toVectorLiteral(v).length).toBeLessThan(0.75 * `[${v.join(',')}]`.length);
  });

  it('a stored embedding read back and written again is the same vector', async () => {
    const { rows } = await client.query<{ embedding: string }>('SELECT embedding::text AS embedding FROM entry_vectors LIMIT 50');
    expect(rows.length).toBe(50);
    const vectors = rows.map((r) => JSON.parse(r.embedding) as number[]);
    expect(await stored(vectors.map(toVectorLiteral))).toEqual(rows.map((r) => r.embedding));
  });
});
