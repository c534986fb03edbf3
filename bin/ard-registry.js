#!/usr/bin/env node
'use strict';
// Runs the compiled CLI (npm install / npm ci build it through the `prepare` script).
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'src', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('ard-registry: dist/ is missing; run `npm run build` (npm ci does it for you)\n');
  process.exit(1);
}
const { main, describeError } = require(cli);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  // Exit rather than wait: a database that failed to open may leave work pending that never ends.
  (error) => {
    process.stderr.write(`ard-registry: ${describeError(error)}\n`);
    process.exit(1);
  },
);
