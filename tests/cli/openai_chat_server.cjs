#!/usr/bin/env node
// The OpenAI Chat Completions mock (mocks/openai-chat.cjs) as its own process
// on 127.0.0.1, for Qwen Code, Copilot and opencode:
//
//   node tests/cli/openai_chat_server.cjs <scenario> <request-log.jsonl> <notes-file>
//
// Prints `{"port":N}` first, appends every request to the log (one JSON
// object a line, written whole before the request is answered, with its
// `kind`: mocks/kinds.cjs) and exits by itself after LIFETIME_MS or
// MAX_REQUESTS.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const zlib = require('node:zlib');
const chat = require('./mocks/openai-chat.cjs');
const { requestKind } = require('./mocks/kinds.cjs');

const LIFETIME_MS = 180_000;
const MAX_REQUESTS = 80;
const SCENARIOS = ['plain', 'tool', 'shell', 'error400', 'error500', 'error401', 'error429', 'write', 'writeOutside', 'stall', 'stallOnce', 'toolStall', 'mcp'];
const [scenario, logPath, notesPath] = process.argv.slice(2);
if (!SCENARIOS.includes(scenario) || !logPath || !notesPath) {
  process.stderr.write(`usage: openai_chat_server.cjs ${SCENARIOS.join('|')} <request-log.jsonl> <notes-file>\n`);
  process.exit(2);
}

function decode(buffer, encoding) {
  if (encoding === 'gzip') return zlib.gunzipSync(buffer).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(buffer).toString('utf8');
  if (encoding === 'deflate') return zlib.inflateSync(buffer).toString('utf8');
  return buffer.toString('utf8');
}

let served = 0;
const server = http.createServer((req, res) => {
  served += 1;
  if (served > MAX_REQUESTS) {
    res.writeHead(503, { 'content-type': 'application/json' });
    res.end('{"error":{"message":"mock request limit reached"}}');
    server.close();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const text = decode(Buffer.concat(chunks), req.headers['content-encoding']);
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = { unparsed: text.slice(0, 1000) };
    }
    const kind = requestKind('openai-chat', { method: req.method, url: req.url, body });
    const record = { n: served, kind, method: req.method, url: req.url, headers: req.headers, body };
    fs.appendFileSync(logPath, `${JSON.stringify(record)}\n`);
    try {
      chat.respond({ method: req.method, url: req.url, headers: req.headers, body, kind }, res, scenario, notesPath);
    } catch (err) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `mock failed: ${err.message}` } }));
    }
  });
});
// Idle connections are kept for the whole test: a server that closes one
// (Node's default, after 5 s) races a client that reuses it at that moment,
// which then gets a reset. The clients' own idle bound (undici: the server's
// less a second) wins that race only when their timers run on time; on a
// loaded machine one did not, and Qwen Code's next call failed as
// network_error (tests/acp/process_acp_chat.test.cjs, a CI run 2026-11-29).
server.keepAliveTimeout = 600_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
setTimeout(() => process.exit(0), LIFETIME_MS).unref();
process.on('SIGTERM', () => process.exit(0));
