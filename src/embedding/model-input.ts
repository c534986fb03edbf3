// What of a text the bundled model reads, cut before any tokenizing. The package's tokenizer
// (@energetic-ai/embeddings `encode`) copies the rest of the text at every position: its time grows with
// the square of the length (32k characters 2.4 s, 128k 46 s measured), while the model reads only the
// first USE_LITE_MAX_TOKENS tokens. A piece of its vocabulary has at most 16 characters and holds the word
// separator only at its start, so:
// - cut at a space, the text keeps exactly the tokens it had up to that space (a segmentation never
//   crosses a space), and
// - twice 128 × 16 characters leave at least the 128 tokens the model reads, unless NFKC normalisation
//   shrinks the text by more than half or one word runs past the cut.
import { USE_LITE_MAX_TOKENS } from './use-lite-graph';

/** Default time limit of one text's tokenizing and embedding on TF.js' worker thread (EMBEDDING_ITEM_TIMEOUT_MS); the longest input tokenizes in ~40 ms. */
export const DEFAULT_EMBEDDING_ITEM_TIMEOUT_MS = 5000;

/** The longest piece of the bundled model's vocabulary (vocab.json), in characters. */
export const USE_LITE_MAX_PIECE_CHARACTERS = 16;

/** Characters of a text given to the tokenizer: 4096 (~40 ms in the package's tokenizer, ~1 ms in use-lite-tokenizer.ts). */
export const USE_LITE_MAX_INPUT_CHARACTERS = 2 * USE_LITE_MAX_TOKENS * USE_LITE_MAX_PIECE_CHARACTERS;

/** `text` cut to at most `max` characters: at its last space when that keeps at least half, else at `max`. */
export function cutToModelInput(text: string, max = USE_LITE_MAX_INPUT_CHARACTERS): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max);
  if (space >= max / 2) return text.slice(0, space);
  // Never half a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
