#!/usr/bin/env node
// A stub agent for the process layer's tests (never a stand-in for a real
// CLI's behaviour): prints Claude-like stream-json — an init event, then an
// assistant message whose text is a JSON record of the argv it received and
// the stdin it read, then a result. With `--sleep PIDFILE` it writes its pid
// (and, with `--grandchild`, a child's) to PIDFILE and waits to be killed.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');

const args = process.argv.slice(2);
const out = (event) => process.stdout.write(`${JSON.stringify(event)}\n`);
out({ type: 'system', subtype: 'init', session_id: 'stub-session', model: 'stub' });

const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const stdin = Buffer.concat(chunks).toString('utf8');
  const record = JSON.stringify({ argv: args, stdin, platform: process.platform });
  out({ type: 'assistant', session_id: 'stub-session', message: { role: 'assistant', content: [{ type: 'text', text: record }] } });
  const sleep = args.indexOf('--sleep');
  if (sleep < 0) {
    out({ type: 'result', subtype: 'success', is_error: false, session_id: 'stub-session', result: record });
    return;
  }
  const pids = [process.pid];
  if (args.includes('--grandchild')) {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    pids.push(child.pid);
  }
  // Written whole, then renamed: a reader never sees it half written.
  fs.writeFileSync(`${args[sleep + 1]}.part`, JSON.stringify(pids));
  fs.renameSync(`${args[sleep + 1]}.part`, args[sleep + 1]);
  setInterval(() => {}, 1000);
});
