#!/usr/bin/env node
// A stub agent for the runAgent benchmark (bench/scenarios/run-agent.mjs):
// reads its stdin to the end, as a CLI reads its prompt, then prints the
// Claude-like stream-json file named by STUB_STREAM_FILE and exits 0.
'use strict';
const fs = require('node:fs');

process.stdin.resume();
process.stdin.on('end', () => {
  fs.createReadStream(process.env.STUB_STREAM_FILE, { highWaterMark: 64 * 1024 }).pipe(process.stdout);
});
