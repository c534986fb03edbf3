// A page of a mirrored peer's change feed (GET {peer}/changes, docs/api.md "Change feed") is
// untrusted input, read change by change like a search answer: only a body that is not an object with
// a `changes` array and a string `nextCursor` is refused whole. Each change is either a removal
// (identifier + `removed: true`) or an entry under the identifier it names; anything else is refused
// with a reason, and the entries themselves are checked later by ingestion's own rules.
import { InvalidPeerResponseError } from './peer-response';

/** A peer cursor longer than this is refused: we store it and send it back. */
export const MAX_PEER_CURSOR_LENGTH = 1024;
/** Identifiers are URNs of a few hundred characters at most; longer ones are not looked up. */
const MAX_IDENTIFIER_LENGTH = 512;

export type PeerChange =
  { index: number; identifier: string; removed: true } | { index: number; identifier: string; removed: false; entry: unknown };

export interface PeerChangePage {
  changes: PeerChange[];
  nextCursor: string;
  hasMore: boolean;
  /** Changes refused before any entry check, by position in the page. */
  refused: Array<{ index: number; identifier: string | null; reason: string }>;
}

export function readPeerChangePage(body: unknown): PeerChangePage {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new InvalidPeerResponseError('the change feed answer is not a JSON object');
  const { changes, nextCursor, hasMore } = body as { changes?: unknown; nextCursor?: unknown; hasMore?: unknown };
  if (!Array.isArray(changes)) throw new InvalidPeerResponseError("the change feed answer has no 'changes' array");
  if (typeof nextCursor !== 'string' || nextCursor === '' || nextCursor.length > MAX_PEER_CURSOR_LENGTH)
    throw new InvalidPeerResponseError(
      `the change feed answer's 'nextCursor' is not a string of 1 to ${MAX_PEER_CURSOR_LENGTH} characters`,
    );
  const page: PeerChangePage = { changes: [], nextCursor, hasMore: hasMore === true, refused: [] };
  changes.forEach((change: unknown, index) => {
    const problem = changeProblem(change);
    const identifier = identifierOf(change);
    if (problem !== null) page.refused.push({ index, identifier, reason: problem });
    else if ((change as { removed?: unknown }).removed === true) page.changes.push({ index, identifier: identifier!, removed: true });
    else page.changes.push({ index, identifier: identifier!, removed: false, entry: (change as { entry: unknown }).entry });
  });
  return page;
}

function changeProblem(change: unknown): string | null {
  if (!change || typeof change !== 'object' || Array.isArray(change)) return 'the change is not an object';
  const { identifier, removed, entry } = change as { identifier?: unknown; removed?: unknown; entry?: unknown };
  if (typeof identifier !== 'string' || identifier === '' || identifier.length > MAX_IDENTIFIER_LENGTH)
    return `the change has no identifier of 1 to ${MAX_IDENTIFIER_LENGTH} characters`;
  if (removed === true) return null;
  if (removed !== undefined && removed !== false) return "the change's 'removed' is not a boolean";
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return 'the change is neither a removal nor carries an entry object';
  const named = (entry as { identifier?: unknown }).identifier;
  if (named !== identifier) return `the change's entry has the identifier '${String(named).slice(0, 200)}', not the change's own`;
  return null;
}

function identifierOf(change: unknown): string | null {
  const id = change && typeof change === 'object' ? (change as { identifier?: unknown }).identifier : undefined;
  return typeof id === 'string' ? id.slice(0, MAX_IDENTIFIER_LENGTH) : null;
}
