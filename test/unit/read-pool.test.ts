// The read pool's pure parts (src/db/read-pool.ts): replica names without credentials, pg_lsn arithmetic, and which
// failures of a replica statement may run again on the primary.
import vm from 'node:vm';
import pg from 'pg';
import { parseLsn, replicaFailure, replicaName } from '../../src/db/read-pool';

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
});
