// Plain BM25, the reference the ranking is judged against (issue: "plain BM25 over the same fields"): Okapi
// BM25 (k1 1.2, b 0.75) over one bag of words per entry, displayName + description + tags + capabilities + the
// tools' names and descriptions (entries.tools), lower-cased letters-and-digits words, no stemming, no expansion,
// no field weights, no embedding. Built in memory from the bench database's entries, so it reads exactly what the
// ranking's index holds.
import { sql, type Kysely } from 'kysely';
import { storedTools } from '../src/catalog/entry-tools';
import type { Database } from '../src/db/schema';
import type { NormalisedFilter } from '../src/search/query-filter';
import type { Ranked } from './relevance-signals';

const K1 = 1.2;
const B = 0.75;

export function plainWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

interface Doc {
  identifier: string;
  type: string;
  length: number;
  tf: Map<string, number>;
}

export class PlainBm25 {
  private constructor(
    private readonly docs: Doc[],
    private readonly df: Map<string, number>,
    private readonly averageLength: number,
  ) {}

  static async build(db: Kysely<Database>): Promise<PlainBm25> {
    const rows = await sql<{
      identifier: string;
      type: string;
      display_name: string;
      description: string | null;
      tags: string[];
      capabilities: string[];
      tools: unknown;
    }>`
      SELECT identifier, type, display_name, description, tags, capabilities, tools FROM entries WHERE deleted_at IS NULL`.execute(db);
    const df = new Map<string, number>();
    const docs = rows.rows.map((r) => {
      const capabilities = r.capabilities ?? [];
      const tools = storedTools(r.tools).flatMap((t) => [...(capabilities.includes(t.name) ? [] : [t.name]), t.description]);
      const words = plainWords([r.display_name, r.description ?? '', ...(r.tags ?? []), ...capabilities, ...tools].join(' '));
      const tf = new Map<string, number>();
      for (const w of words) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) df.set(w, (df.get(w) ?? 0) + 1);
      return { identifier: r.identifier, type: r.type, length: words.length, tf };
    });
    const averageLength = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, docs.length);
    return new PlainBm25(docs, df, averageLength);
  }

  /** The entries with any query word, best first (ties by identifier); a `type` filter narrows them. */
  rank(text: string, filter: NormalisedFilter): Ranked[] {
    const types = filter.find((f) => f.path === 'type')?.values;
    const words = [...new Set(plainWords(text))];
    const n = this.docs.length;
    const out: Ranked[] = [];
    for (const doc of this.docs) {
      if (types && !types.includes(doc.type)) continue;
      let score = 0;
      for (const w of words) {
        const tf = doc.tf.get(w);
        if (!tf) continue;
        const df = this.df.get(w) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / this.averageLength));
      }
      if (score > 0) out.push({ identifier: doc.identifier, relevance: score });
    }
    return out.sort((a, b) => b.relevance - a.relevance || (a.identifier < b.identifier ? -1 : 1));
  }
}
