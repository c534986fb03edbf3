// The command line behaves like one: help and version never open the database (no DATA_DIR is created),
// unknown flags are errors with usage, a missing manifest is "file not found".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../helpers/cli-process';

let root: string;
let dataDir: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'ard-cli-'));
  dataDir = path.join(root, 'data');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('ard-registry arguments', () => {
  it('--help and help print the commands and exit 0 without opening the database', async () => {
    for (const args of [['--help'], ['-h'], ['help']]) {
      const res = await runCli(args, { DATA_DIR: dataDir });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/^usage: ard-registry <command>/);
      expect(res.stdout).toMatch(/ingest +load ai-catalog\.json manifest files/);
    }
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('--version prints the package version', async () => {
    const res = await runCli(['--version'], { DATA_DIR: dataDir });
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', '..', 'package.json'), 'utf8'));
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`ard-registry ${pkg.version}\n`);
  });

  it.each([['ingest'], ['sources'], ['mcp'], ['serve']])(
    "%s --help prints that command's usage and never opens the database",
    async (command) => {
      const res = await runCli([command, '--help'], { DATA_DIR: dataDir });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(new RegExp(`^usage: ard-registry ${command}`));
      expect(fs.existsSync(dataDir)).toBe(false);
    },
  );

  it('an unknown flag is an error with the command usage (exit 2)', async () => {
    const res = await runCli(['ingest', '--bogus', 'x.json'], { DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/ard-registry: ingest: Unknown option '--bogus'/);
    expect(res.stderr).toMatch(/usage: ard-registry ingest <file\|domain\|url>/);
    const top = await runCli(['--verbose'], { DATA_DIR: dataDir });
    expect(top.code).toBe(2);
    expect(top.stderr).toMatch(/unknown option '--verbose'/);
    const unknown = await runCli(['frobnicate'], { DATA_DIR: dataDir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command 'frobnicate'/);
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('a missing manifest is "file not found", and nothing is opened', async () => {
    const res = await runCli(['ingest', './missing.json'], { DATA_DIR: dataDir });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('ard-registry ingest: ./missing.json: file not found\n');
    const bare = await runCli(['ingest', 'catalog.json'], { DATA_DIR: dataDir });
    expect(bare.stderr).toMatch(/catalog\.json: file not found/);
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it('--interval must be a number of seconds', async () => {
    const res = await runCli(['ingest', 'acme.example', '--interval', 'soon'], { DATA_DIR: dataDir });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--interval needs a number of seconds/);
  });
});
