// One owner per embedded data folder. PGlite is a single-process database: a second process opening the
// same folder (even read-only, even `ingest --help` once did) corrupts it. The owner holds a lock file in
// the folder, created with O_EXCL before the database opens and removed on exit; a lock whose process is
// gone (kill -9, a crash, a power cut) is taken over. The file also says how to reach the owner: a server
// writes its local address and an admin token there (mode 0600), so `ard-registry ingest`, `sources` and
// `mcp` go through it instead of opening the folder (src/owner-client.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const LOCK_FILE_NAME = 'ard-registry.lock';

export interface DataDirOwner {
  pid: number;
  hostname: string;
  /** What the owner runs: 'serve', 'ingest', 'sources', 'mcp', or a library caller's label. */
  command: string;
  startedAt: string;
  /** A server's local base URL, for commands that go through it. */
  url?: string;
  /** A token the server's /admin routes accept, for local commands; only in the 0600 lock file. */
  adminToken?: string;
}

/** The folder is owned by another live process. */
export class DataDirLockedError extends Error {
  override name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly owner: DataDirOwner | null,
  ) {
    super(
      owner
        ? `the embedded database in ${dataDir} is in use by pid ${owner.pid} (ard-registry ${owner.command}, since ${owner.startedAt}${owner.hostname !== os.hostname() ? ` on host ${owner.hostname}` : ''})`
        : `the embedded database in ${dataDir} is in use by another process (its lock file ${path.join(dataDir, LOCK_FILE_NAME)} cannot be read)`,
    );
  }
}

export interface DataDirLock {
  readonly file: string;
  readonly owner: DataDirOwner;
  /** Removes the lock file (idempotent); also done at process exit. */
  release(): void;
}

const held = new Set<DataDirLock>();
let exitHookInstalled = false;

/**
 * Takes the folder's lock for this process, or throws DataDirLockedError naming the live owner.
 * A lock left by a process that no longer runs on this host is taken over.
 */
export function acquireDataDirLock(dataDir: string, details: { command: string; url?: string; adminToken?: string }): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const owner: DataDirOwner = {
    pid: process.pid,
    hostname: os.hostname(),
    command: details.command,
    startedAt: new Date().toISOString(),
    ...(details.url ? { url: details.url } : {}),
    ...(details.adminToken ? { adminToken: details.adminToken } : {}),
  };
  // Two attempts: the second after taking over a stale lock. Losing the race to another process there is a
  // refusal like any other.
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${JSON.stringify(owner)}\n`, { flag: 'wx', mode: 0o600 });
      const heartbeat = setInterval(() => {
        const now = new Date();
        fs.utimes(file, now, now, () => undefined);
      }, HEARTBEAT_MS);
      heartbeat.unref();
      const lock: DataDirLock = {
        file,
        owner,
        release() {
          clearInterval(heartbeat);
          if (!held.delete(lock)) return;
          try {
            const current = readLockFile(file);
            if (current !== 'unreadable' && current?.pid === process.pid) fs.unlinkSync(file);
          } catch {
            /* already gone */
          }
        },
      };
      held.add(lock);
      installExitHook();
      return lock;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readLockFile(file);
    if (current === 'unreadable' || (current && isLive(current, file))) throw new DataDirLockedError(dataDir, current === 'unreadable' ? null : current);
    if (current) removeStaleLock(file, current);
  }
  const current = readLockFile(file);
  throw new DataDirLockedError(dataDir, current === 'unreadable' ? null : current);
}

/** The live owner of the folder, or null when nobody holds it (a stale lock counts as nobody). */
export function readDataDirOwner(dataDir: string): DataDirOwner | 'unreadable' | null {
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const current = readLockFile(file);
  if (current === 'unreadable') return current;
  return current && isLive(current, file) ? current : null;
}

/** A token for the owner's local commands. */
export function newAdminToken(): string {
  return randomBytes(24).toString('base64url');
}

function readLockFile(file: string): DataDirOwner | 'unreadable' | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    return 'unreadable';
  }
  try {
    const parsed = JSON.parse(text) as DataDirOwner;
    if (!Number.isInteger(parsed.pid)) return { pid: 0, hostname: '', command: 'unknown', startedAt: '' };
    return parsed;
  } catch {
    // Cut short by a crash between create and write: nobody can hold it.
    return { pid: 0, hostname: os.hostname(), command: 'unknown', startedAt: '' };
  }
}

/** How often an owner refreshes its lock file's mtime: the liveness signal across hosts. */
const HEARTBEAT_MS = 10_000;
/** A lock from another host whose mtime is older than this is stale (its owner stopped refreshing it). */
const REMOTE_STALE_MS = 6 * HEARTBEAT_MS;

/**
 * Whether the lock's process still runs. On this host: the pid exists and (on Linux) runs Node; a lock with
 * this process's own pid that it does not hold is a previous incarnation's (containers reuse pid 1). From
 * another host (a folder on a shared disk): its mtime is refreshed every HEARTBEAT_MS while the owner runs.
 */
function isLive(owner: DataDirOwner, file: string): boolean {
  if (owner.pid <= 0) return false;
  if (owner.hostname && owner.hostname !== os.hostname()) {
    try {
      return Date.now() - fs.statSync(file).mtimeMs < REMOTE_STALE_MS;
    } catch {
      return false;
    }
  }
  if (owner.pid === process.pid) return [...held].some((lock) => lock.file === file);
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return runsNode(owner.pid);
}

/** False only when /proc says the pid now runs something other than Node (a pid reused after a crash). */
function runsNode(pid: number): boolean {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline === '' || /node|ard-registry/.test(cmdline);
  } catch {
    return true;
  }
}

/**
 * Moves the stale lock aside under a name only this process uses, then checks it moved the lock it judged
 * stale: if another process took the folder over in between, its fresh lock is put back.
 */
function removeStaleLock(file: string, stale: DataDirOwner): void {
  const aside = `${file}.stale-${process.pid}`;
  try {
    fs.renameSync(file, aside);
  } catch {
    return;
  }
  const moved = readLockFile(aside);
  if (moved !== 'unreadable' && moved && (moved.pid !== stale.pid || moved.startedAt !== stale.startedAt)) {
    try {
      fs.linkSync(aside, file);
    } catch {
      /* a third process holds it now: we will be refused */
    }
  }
  fs.rmSync(aside, { force: true });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const lock of [...held]) lock.release();
  });
}
