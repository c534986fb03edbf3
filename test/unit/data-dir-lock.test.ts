// The embedded folder's lock (src/db/data-dir-lock.ts): one holder, the live owner named in a refusal,
// a lock whose process is gone taken over, released on close.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { acquireDataDirLock, DataDirLockedError, LOCK_FILE_NAME, readDataDirOwner } from '../../src/db/data-dir-lock';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-lock-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('acquireDataDirLock', () => {
  it('writes the owner (mode 0600), refuses a second holder naming it, and is free again after release', () => {
    const lock = acquireDataDirLock(dir, { command: 'serve', url: 'http://127.0.0.1:1234', adminToken: 'secret' });
    const file = path.join(dir, LOCK_FILE_NAME);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
      pid: process.pid,
      command: 'serve',
      url: 'http://127.0.0.1:1234',
      adminToken: 'secret',
    });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(readDataDirOwner(dir)).toMatchObject({ pid: process.pid, command: 'serve' });
    let refused: unknown;
    try {
      acquireDataDirLock(dir, { command: 'ingest' });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as Error).message).toMatch(new RegExp(`in use by pid ${process.pid} \\(ard-registry serve, since `));
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    expect(readDataDirOwner(dir)).toBeNull();
    acquireDataDirLock(dir, { command: 'ingest' }).release();
  });

  it('takes over a lock whose process is gone (kill -9, a crash), and one cut short while being written', () => {
    const gone = spawnSync(process.execPath, ['-e', '0']).pid as number;
    fs.writeFileSync(
      path.join(dir, LOCK_FILE_NAME),
      JSON.stringify({ pid: gone, hostname: os.hostname(), command: 'serve', startedAt: '2020-01-01T00:00:00Z' }),
    );
    expect(readDataDirOwner(dir)).toBeNull();
    const lock = acquireDataDirLock(dir, { command: 'mcp' });
    expect(lock.owner.pid).toBe(process.pid);
    lock.release();
    fs.writeFileSync(path.join(dir, LOCK_FILE_NAME), '{"pid": 12');
    acquireDataDirLock(dir, { command: 'mcp' }).release();
  });

  it('counts a lock from another host as live while its mtime is fresh, and as gone a minute after', () => {
    const file = path.join(dir, LOCK_FILE_NAME);
    fs.writeFileSync(file, JSON.stringify({ pid: 4242, hostname: 'another-host', command: 'serve', startedAt: '2020-01-01T00:00:00Z' }));
    expect(() => acquireDataDirLock(dir, { command: 'ingest' })).toThrow(/in use by pid 4242 .* on host another-host/);
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(file, old, old);
    acquireDataDirLock(dir, { command: 'ingest' }).release();
  });
});
