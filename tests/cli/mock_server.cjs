#!/usr/bin/env node
// A mock model API on 127.0.0.1, run as its own process so the test driver
// can stop it by PID:
//
//   node tests/cli/mock_server.cjs <api> <scenario> <request-log.jsonl> [max-requests]
//
// <api> is `gemini`, `anthropic` or `openai` (one responder module each in
// mocks/); <scenario> is `plain` (a text answer), `tool` (a tool call, then
// an answer quoting the tool's output), `error` (the API rejects every call)
// `flaky` (the first call fails with a retryable error, then `plain`) or
// `empty` (a stream that finishes with no text), `stall` (the stream starts,
// then silence; `stallOnce`, `stallSecond`: only the first, the second call of
// the agent loop), `error500` (every call fails with HTTP 500), `flaky500`
// (the first call fails with 500, then `plain`), `marked500` (a call of the
// agent loop holding a mark `FAIL_500_TIMES_<n>_<id>` fails with 500 the
// first n times, mocks/common.cjs; else `plain`), `marked429` (the same
// with HTTP 429 and marks `FAIL_429_TIMES_<n>_<id>`), `auth` (HTTP 401),
// `quota` (HTTP 429) or `reject` (HTTP 400, a request the model refuses), `write` / `writeOutside` (a
// tool call writing a file in the folder / above it, then an answer quoting
// the tool's result), `mcp` (a call of the tool whose name ends in
// `record_note`, then an answer quoting its result; the Responses mock
// first searches for it with a client-side `tool_search` the request offers
// instead of the tool, as a model Codex defers MCP tools for would),
// `structured` (an answer in the shape of the JSON Schema the request
// carries: Claude Code's `StructuredOutput` tool called with it, Codex's
// `text.format` answered as JSON; plain otherwise), `ask` (Anthropic:
// a question through Claude Code's AskUserQuestion tool, then an answer
// quoting what it returned), `compact` (Anthropic: Claude Code's request to
// summarise the conversation answered with a `<summary>`, plain
// otherwise), `compactAuto` (the same, and every answer reports a context
// nearly full: Claude Code compacts before its next turn); the Gemini mock also plays `trickle` (see mocks/gemini.cjs). The
// server listens on an ephemeral port, prints `{"port":N}` as its first
// stdout line, appends every request it receives to the log (one JSON object
// a line, written whole before the request is answered, with its `kind`:
// `turn` for the call of the agent's turn, else the side call it is,
// mocks/kinds.cjs; a scenario plays on `turn` calls), and exits by itself
// after LIFETIME_MS or MAX_REQUESTS (or [max-requests], at most
// MAX_REQUESTS_GIVEN), whichever comes first: nothing here can
// outlive a test run or loop without bound.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const zlib = require('node:zlib');
const { requestKind } = require('./mocks/kinds.cjs');

const LIFETIME_MS = 180_000;
const MAX_REQUESTS_GIVEN = 1000;
const MAX_BODY_BYTES = 32 * 1024 * 1024;

const RESPONDERS = {
  gemini: require('./mocks/gemini.cjs'),
  anthropic: require('./mocks/anthropic.cjs'),
  openai: require('./mocks/openai.cjs'),
};

const [api, scenario, logPath, given] = process.argv.slice(2);
const MAX_REQUESTS = given === undefined ? 60 : Math.min(Number(given), MAX_REQUESTS_GIVEN);
const responder = RESPONDERS[api];
// `long` (a reply of ~64 KB, common.cjs's LONG_PIECES): Anthropic and OpenAI only.
const LONG_APIS = ['long'];
const SCENARIOS = ['plain', 'tool', 'error', 'flaky', 'empty', 'stall', 'stallOnce', 'stallSecond', 'error500', 'flaky500', 'marked500', 'marked429', 'auth', 'quota', 'reject', 'write', 'writeOutside', 'mcp', 'structured', 'ask', 'compact', 'compactAuto'];
const GEMINI_ONLY = ['trickle'];
const known = SCENARIOS.includes(scenario) || (api === 'gemini' && GEMINI_ONLY.includes(scenario)) || (api !== 'gemini' && LONG_APIS.includes(scenario));
if (!responder || !known || !logPath || !(MAX_REQUESTS >= 1)) {
  process.stderr.write(
    `usage: mock_server.cjs gemini|anthropic|openai ${SCENARIOS.join('|')} <request-log.jsonl> [max-requests, at most ${MAX_REQUESTS_GIVEN}] (gemini also: ${GEMINI_ONLY.join('|')})\n`,
  );
  process.exit(2);
}

/** The request body as text, decompressed when the client compressed it. */
function decode(buffer, encoding) {
  if (encoding === 'gzip') return zlib.gunzipSync(buffer).toString('utf8');
  if (encoding === 'br') return zlib.brotliDecompressSync(buffer).toString('utf8');
  if (encoding === 'deflate') return zlib.inflateSync(buffer).toString('utf8');
  if (encoding === 'zstd' && typeof zlib.zstdDecompressSync === 'function') {
    return zlib.zstdDecompressSync(buffer).toString('utf8');
  }
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
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    const text = decode(Buffer.concat(chunks), req.headers['content-encoding']);
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = { unparsed: text.slice(0, 1000) };
    }
    const kind = requestKind(api, { method: req.method, url: req.url, body });
    const record = { n: served, kind, method: req.method, url: req.url, headers: req.headers, body };
    fs.appendFileSync(logPath, `${JSON.stringify(record)}\n`);
    try {
      responder.respond({ method: req.method, url: req.url, headers: req.headers, body, kind }, res, scenario);
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
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
setTimeout(() => process.exit(0), LIFETIME_MS).unref();
process.on('SIGTERM', () => process.exit(0));
