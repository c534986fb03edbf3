// The bundled model's tokenizer (@energetic-ai/embeddings' Tokenizer: a Viterbi segmentation over its vocabulary
// trie) in linear time. The package's `encode` copies the rest of the text at every position (symbols.slice(i)),
// so its time grows with the square of the length: ~2.8 ms for an entry's 1,500-character doc text, most of
// an entry's tokenizing. This walks the same trie from each position in place and keeps every rule of the
// package's (the unknown-character fallback, the tie-break, the merge of repeated unknowns), so it gives the
// same ids: test/unit/use-lite-tokenizer.test.ts compares both over the demo corpus and odd inputs.

/** The parts of the package's Tokenizer this reads: its vocabulary trie and its [piece, score] list. */
export interface UseLiteTokenizerData {
  trie: { root: TrieNode };
  vocabulary: Array<[string, number]>;
}

interface TrieNode {
  children: Record<string, TrieNode | undefined>;
  end: boolean;
  /** [the piece's characters, its score, its index in the vocabulary] */
  word: [string[], number, number];
}

const SEPARATOR = '\u2581';

/** The ids the package's `tokenizer.encode(text)` gives, in time linear in the text's length. */
export function encodeUseLite(tokenizer: UseLiteTokenizerData, text: string): number[] {
  const normalized = text.normalize('NFKC');
  const symbols = [...(normalized.length > 0 ? SEPARATOR + normalized.replace(/ /g, SEPARATOR) : normalized)];
  const n = symbols.length;
  const best = new Float64Array(n + 1);
  const words = new Int32Array(n + 1);
  // The package collects every piece, then relaxes each end position over its pieces by ascending start. Relaxing
  // forward from each start in ascending order visits every end's pieces in that same order, and best[i] is final
  // when position i is reached (every piece ending there starts before it): the same choices, no piece lists.
  const relax = (end: number, score: number, index: number) => {
    if (best[end] === 0 || score >= best[end]) {
      best[end] = score;
      words[end] = index;
    }
  };
  for (let i = 0; i < n; i++) {
    let matched = false;
    let node = tokenizer.trie.root.children[symbols[i]];
    for (let j = i; j < n && node; j++) {
      if (node.end) {
        relax(i + node.word[0].length, node.word[1] + best[i], node.word[2]);
        matched = true;
      }
      node = node.children[symbols[j + 1]];
    }
    // No piece starts here: the character alone, as the unknown id 0 with score 0.
    if (!matched) relax(i + 1, best[i], 0);
  }
  const reversed: number[] = [];
  // Steps back by the piece's length in UTF-16 units (not characters), as the package does.
  for (let at = n; at > 0; at -= tokenizer.vocabulary[words[at]][0].length) reversed.push(words[at]);
  const merged: number[] = [];
  let previousUnknown = false;
  for (const id of reversed) {
    if (!(previousUnknown && id === 0)) merged.push(id);
    previousUnknown = id === 0;
  }
  return merged.reverse();
}
