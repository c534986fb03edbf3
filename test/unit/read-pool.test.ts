// The read pool's pure parts (src/db/read-pool.ts): replica names without credentials, pg_lsn arithmetic, and which
// failures of a replica statement may run again on the primary.
import vm from 'node:vm';
import pg from 'pg';
import { createReadPool, parseLsn, replicaFailure, replicaName } from '../../src/db/read-pool';

/** A pg.Pool stand-in: records each statement its clients run; `fail` decides which one throws. */
function fakePool(name: string, log: string[], check: Record<string, unknown>, fail: (text: string) => unknown = () => null) {
  const client = {
    query: async (text: string) => {
      log.push(`${name}: ${text}`);
      const error = fail(text);
      if (error) throw error;
      return { command: 'SELECT', rowCount: 1, rows: [{ text }] };
    },
    release: (destroy?: boolean) => log.push(`${name}: release${destroy ? ' (destroyed)' : ''}`),
  };
  return {
    connect: async () => client,
    query: async () => ({ rows: [check] }),
    end: async () => undefined,
  } as unknown as pg.Pool;
}

function databaseError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError('failed', 0, 'error');
  error.code = code;
  return error;
}

describe('read pool', () => {
  it('names a replica by host and port, never its credentials or database', () => {
    expect(replicaName('postgres://ard:secret@replica-1.internal:5433/ard')).toBe('replica-1.internal:5433');
    expect(replicaName('postgresql://replica-2/ard')).toBe('replica-2:5432');
  });

  it('reads a pg_lsn as one number, ordered across the 32-bit halves', () => {
    expect(parseLsn('0/0')).toBe(0n);
    expect(parseLsn('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect((parseLsn('1/0') as bigint) > (parseLsn('0/FFFFFFFF') as bigint)).toBe(true);
    expect(parseLsn(null)).toBeNull();
    expect(parseLsn('not an lsn')).toBeNull();
  });

  it('moves a statement to the primary for a lost connection or a recovery conflict, not for a query error', () => {
    expect(replicaFailure(new Error('Connection terminated unexpectedly'))).toBe('lost');
    expect(replicaFailure(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' }))).toBe('lost');
    expect(replicaFailure(databaseError('57P01'))).toBe('lost'); // admin shutdown
    expect(replicaFailure(databaseError('57P03'))).toBe('lost'); // cannot connect now (starting up)
    expect(replicaFailure(databaseError('08006'))).toBe('lost');
    expect(replicaFailure(databaseError('40001'))).toBe('conflict'); // cancelled by WAL replay
    expect(replicaFailure(databaseError('25006'))).toBeNull(); // a write on the read-only replica
    expect(replicaFailure(databaseError('57014'))).toBeNull(); // statement timeout: the primary would time out too
    expect(replicaFailure(databaseError('42601'))).toBeNull();
    expect(replicaFailure(new TypeError('bad argument'))).toBeNull();
    // A socket error made in another realm (node's own, seen from jest's sandbox) is still a lost connection.
    const foreign = vm.runInNewContext("Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })") as unknown;
    expect(foreign instanceof Error).toBe(false);
    expect(replicaFailure(foreign)).toBe('lost');
    expect(replicaFailure({ severity: 'ERROR', code: '57P01', message: 'terminating connection' })).toBe('lost');
    expect(replicaFailure({ severity: 'ERROR', code: '22P02', message: 'invalid input syntax' })).toBeNull();
  });

  it('moves a read transaction to the primary when its replica connection is lost, replaying its statements', async () => {
    const log: string[] = [];
    const lost = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const primary = fakePool('primary', log, { lsn: '0/100' });
    const replica = fakePool('replica', log, { standby: true, replayed: '0/100', since_replay: 50 }, (text) =>
      text.startsWith('SELECT pg_sleep') ? lost : null,
    );
    const pool = await createReadPool({ primary, replicas: [{ name: 'replica:5432', pool: replica }], maxLagSeconds: 10, checkMs: 0 });
    try {
      // Caught up (replayed = the primary's position) although its last transaction is 50 s old: an idle primary.
      expect(pool.snapshot().replicas).toEqual([{ name: 'replica:5432', up: true, lagSeconds: 0, problem: null }]);
      const client = await pool.connect();
      await client.query('begin', []);
      await client.query("SET LOCAL work_mem = '7MB'", []);
      const result = await client.query<{ text: string }>('SELECT pg_sleep(1)', []);
      await client.query('commit', []);
      client.release();
      expect(result.rows).toEqual([{ text: 'SELECT pg_sleep(1)' }]);
      expect(log).toEqual([
        'replica: begin',
        "replica: SET LOCAL work_mem = '7MB'",
        'replica: SELECT pg_sleep(1)',
        'replica: release (destroyed)',
        'primary: begin',
        "primary: SET LOCAL work_mem = '7MB'",
        'primary: SELECT pg_sleep(1)',
        'primary: commit',
        'primary: release',
      ]);
      expect(pool.snapshot()).toMatchObject({
        replicas: [{ up: false, problem: 'unreachable: ECONNRESET' }],
        served: { primary: 1, 'replica:5432': 1 },
        retriedOnPrimary: 1,
      });
      // Out of service: the next read goes to the primary at once.
      log.length = 0;
      (await pool.connect()).release();
      expect(log).toEqual(['primary: release']);
    } finally {
      await pool.end();
    }
  });

  it('takes a replica out while it lags past the limit, and keeps a query error an error', async () => {
    const log: string[] = [];
    const primary = fakePool('primary', log, { lsn: '0/200' });
    const replica = fakePool('replica', log, { standby: true, replayed: '0/100', since_replay: 12.5 });
    const pool = await createReadPool({ primary, replicas: [{ name: 'replica:5432', pool: replica }], maxLagSeconds: 10, checkMs: 0 });
    try {
      expect(pool.snapshot().replicas).toEqual([
        { name: 'replica:5432', up: false, lagSeconds: 12.5, problem: 'replay 12.5 s behind the primary' },
      ]);
      (await pool.connect()).release();
      expect(log).toEqual(['primary: release']);
    } finally {
      await pool.end();
    }
    const caughtUp = await createReadPool({
      primary,
      replicas: [
        {
          name: 'replica:5432',
          pool: fakePool('replica', log, { standby: true, replayed: '0/200', since_replay: 99 }, (t) =>
            t === 'bad' ? databaseError('42601') : null,
          ),
        },
      ],
      maxLagSeconds: 10,
      checkMs: 0,
    });
    try {
      const client = await caughtUp.connect();
      await expect(client.query('bad', [])).rejects.toMatchObject({ code: '42601' });
      client.release();
      expect(caughtUp.snapshot()).toMatchObject({ replicas: [{ up: true }], retriedOnPrimary: 0 });
    } finally {
      await caughtUp.end();
    }
  });
});
