// The Gemini tool (seed 003) on the real Gemini CLI (the pinned dev
// dependency), offline against the mock Gemini API on 127.0.0.1: through
// runGeminiTool, the `agent-context gemini` command and the MCP server
// (called by the official v2 MCP client); for HTTP 400, 401 and 429, runAgent
// on the same mock too, whose error.kind the envelope's error_kind must be.
//
// Each test has its own temp folder (HOME with a fake key, the base-URL
// setting and `general.maxAttempts: 1`, so that Gemini CLI does not retry
// API calls itself and the tool's retries are what is seen), a mock stopped
// by its PID, and checks that no process is left running in its folder.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { turnCalls } = require('./requests.cjs');
const { waitFor } = require('./wait.cjs');

const TEST_TIMEOUT_MS = 120_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const MODEL = harness.MODELS.gemini;
const BIN = path.join(harness.ROOT, 'bin', 'agent-context.js');
const QUESTION = 'What UI framework should we use, and why?';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUCCESS_KEYS = ['success', 'tool', 'SESSION_ID', 'result', 'duration'];
const FAILURE_KEYS = ['success', 'tool', 'error', 'error_kind', 'error_detail', 'duration'];
const DETAIL_KEYS = ['message', 'exit_code', 'last_lines', 'idle_timeout_s', 'max_duration_s', 'retries'];

/** A folder, a mock playing `scenario` (or a given base URL), a sandboxed HOME. */
async function setUp(scenario, { baseUrl } = {}) {
  const dir = harness.tempDir(`gemini-tool-${scenario}`);
  const mock = baseUrl ? null : await harness.startMock('gemini', scenario, dir);
  const box = harness.sandbox('gemini', mock ?? { baseUrl }, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  // The tool finds the pinned CLI through the documented variable.
  const env = { ...box.env, AGENT_CONTEXT_GEMINI_BIN: harness.executable('gemini') };
  return { dir, mock, env, cwd: fs.realpathSync(box.cwd) };
}

function cleanUp(ctx) {
  ctx.mock?.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** runGeminiTool in `ctx`, with the mock's model unless `params` says otherwise. */
async function call(ctx, params = {}, options = {}) {
  const before = ctx.mock ? ctx.mock.requests().length : 0;
  const started = Date.now();
  const envelope = await pkg.runGeminiTool({ PROMPT: QUESTION, cd: ctx.cwd, model: MODEL, ...params }, { env: ctx.env, ...options });
  return { envelope, elapsedMs: Date.now() - started, calls: ctx.mock ? mainCalls(ctx.mock.requests().slice(before)) : [] };
}

/** The calls of Gemini CLI's turn: its stream, not a check beside it (the mock logs each call's kind). */
function mainCalls(requests) {
  return turnCalls(requests);
}

/** Every string inside a JSON value. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** PIDs of the processes whose working directory is `dir` or inside it. */
function processesIn(dir) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cwd = fs.readlinkSync(`/proc/${entry}/cwd`);
      if (cwd === dir || cwd.startsWith(`${dir}/`)) pids.push(Number(entry));
    } catch {
      // gone meanwhile, a zombie, or not ours to read
    }
  }
  return pids;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code !== 'ESRCH';
  }
}

function checkSuccess(envelope) {
  assert.deepEqual(Object.keys(envelope).slice(0, 5), SUCCESS_KEYS);
  assert.equal(envelope.success, true, JSON.stringify(envelope));
  assert.equal(envelope.tool, 'gemini');
  assert.match(envelope.SESSION_ID, UUID);
  assert.match(envelope.duration, /^\d+m\d+s$/);
}

function checkFailure(envelope, kind, { retries, limits = [300, 1800] }) {
  assert.deepEqual(Object.keys(envelope).slice(0, 6), FAILURE_KEYS, JSON.stringify(envelope));
  assert.equal(envelope.success, false);
  assert.equal(envelope.tool, 'gemini');
  assert.equal(envelope.error_kind, kind, JSON.stringify(envelope, null, 2));
  assert.deepEqual(Object.keys(envelope.error_detail), DETAIL_KEYS);
  assert.equal(envelope.error_detail.retries, retries);
  assert.deepEqual([envelope.error_detail.idle_timeout_s, envelope.error_detail.max_duration_s], limits);
  assert.ok(envelope.error_detail.last_lines.length <= 20);
  assert.match(envelope.duration, /^\d+m\d+s$/);
}

const version = harness.installedVersion('gemini');

test(`gemini ${version}: a streamed answer, found on the PATH, with the seed's default model`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    // No variable: `gemini` is looked up on the child's PATH.
    const { AGENT_CONTEXT_GEMINI_BIN: bin, ...env } = ctx.env;
    ctx.env = { ...env, PATH: `${path.dirname(bin)}:${env.PATH}` };
    const { envelope, calls } = await call(ctx, { model: undefined });
    checkSuccess(envelope);
    assert.deepEqual(Object.keys(envelope), SUCCESS_KEYS);
    assert.equal(envelope.result, PLAIN_TEXT);
    assert.equal(calls.length, 1);
    // The prompt reached the API whole; Gemini CLI 0.61 sends the seed's
    // gemini-3-pro-preview as gemini-3.1-pro-preview.
    assert.ok(strings(calls[0].body).includes(QUESTION));
    assert.match(calls[0].url, /\/models\/gemini-3\.1-pro-preview:streamGenerateContent/);
    assert.equal(calls[0].headers['x-goog-api-key'], harness.FAKE_KEYS.gemini);
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: resuming by SESSION_ID keeps the session`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    const first = await call(ctx, { PROMPT: 'First question: colours?' });
    checkSuccess(first.envelope);
    const second = await call(ctx, { PROMPT: 'Second question: fonts?', SESSION_ID: first.envelope.SESSION_ID });
    checkSuccess(second.envelope);
    assert.equal(second.envelope.SESSION_ID, first.envelope.SESSION_ID);
    // The API saw the first exchange again, then the second question.
    const texts = strings(second.calls[0].body);
    assert.ok(texts.some((t) => t.includes('First question: colours?')));
    assert.ok(texts.some((t) => t.includes(PLAIN_TEXT)));
    assert.ok(texts.includes('Second question: fonts?'));
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: a tool call in read-only mode, with all messages and metrics`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('tool');
  try {
    const { envelope, calls } = await call(ctx, {
      PROMPT: 'Read notes.txt and tell me the launch code.',
      sandbox: 'read-only',
      return_all_messages: true,
      return_metrics: true,
    });
    checkSuccess(envelope);
    assert.deepEqual(Object.keys(envelope), [...SUCCESS_KEYS, 'all_messages', 'metrics']);
    assert.equal(envelope.result, 'The notes say the launch code is 4217.');
    // Gemini read the file and sent its content back.
    assert.equal(calls.length, 2);
    assert.ok(strings(calls[1].body).some((s) => s.includes('4217')));
    const toolUses = envelope.all_messages.filter((e) => e.type === 'toolUse').map((e) => e.toolUse);
    assert.deepEqual(toolUses.map((t) => [t.name, t.status]), [['read_file', 'pending'], ['read_file', 'success']]);
    assert.deepEqual(envelope.all_messages[0], { type: 'session', sessionId: envelope.SESSION_ID });
    assert.equal(envelope.all_messages.at(-1).status, 'success');
    const m = envelope.metrics;
    assert.deepEqual([m.attempts, m.retries, m.exit_code, m.tool_calls, m.total_tokens], [1, 0, 0, 1, 258]);
    assert.ok(m.duration_ms > 0);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: an upstream 500 is retried once, then reported with retries: 1`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('error500');
  try {
    const { envelope, calls, elapsedMs } = await call(ctx, { max_retries: 1, return_metrics: true });
    checkFailure(envelope, 'upstream_error', { retries: 1 });
    assert.equal(envelope.error, 'the Gemini API failed (HTTP 500)');
    assert.match(envelope.error_detail.message, /Mock internal error/);
    assert.equal(envelope.error_detail.exit_code, 244); // 500 mod 256
    assert.ok(envelope.error_detail.last_lines.some((l) => l.includes('"status":"error"')));
    // Gemini CLI retries the call itself too (max_retries also sets its own
    // general.maxAttempts in the run's home, as runAgent's maxRetries does):
    // two attempts of ours, two model calls each.
    assert.equal(calls.length, 4);
    assert.ok(elapsedMs >= 500, 'waited the first backoff');
    assert.deepEqual([envelope.metrics.attempts, envelope.metrics.retries], [2, 1]);
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: a 500 then a success is a success`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('flaky500');
  try {
    const { envelope, calls } = await call(ctx, { return_metrics: true });
    checkSuccess(envelope);
    assert.equal(envelope.result, PLAIN_TEXT);
    assert.equal(calls.length, 2);
    // Gemini CLI retried the call itself (its own attempts bounded by
    // max_retries, as runAgent's): one attempt of ours.
    assert.deepEqual([envelope.metrics.attempts, envelope.metrics.retries], [1, 0]);
  } finally {
    cleanUp(ctx);
  }
});

// One taxonomy: the envelope's error_kind is runAgent's error.kind for the
// same API answer (runAgent called on the same mock, same CLI).
for (const [scenario, status, kind, summary, retried, says] of [
  ['reject', 400, 'request_rejected', 'the Gemini API rejected the request (HTTP 400)', false, /temperature is out of range/],
  ['error', 400, 'auth_error', 'the Gemini API refused the credentials (HTTP 400): check GEMINI_API_KEY', false, /API key not valid/],
  ['auth', 401, 'auth_error', 'the Gemini API refused the credentials (HTTP 401): check GEMINI_API_KEY', false, /invalid authentication credentials/],
  ['quota', 429, 'quota_exceeded', 'the Gemini API is rate limited or out of quota (HTTP 429)', true, /resource has been exhausted/],
]) {
  const what = retried ? 'retried once' : 'not retried';
  test(`gemini ${version}: an HTTP ${status} (mock '${scenario}') is ${kind}, ${what}, as runAgent says`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const ctx = await setUp(scenario);
    try {
      const { envelope, calls } = await call(ctx, { max_retries: retried ? 1 : 3 });
      checkFailure(envelope, kind, { retries: retried ? 1 : 0 });
      assert.equal(envelope.error, summary);
      assert.match(envelope.error_detail.message, says);
      assert.equal(envelope.error_detail.exit_code, status % 256);
      if (!retried) assert.equal(calls.length, 1);
      else assert.ok(calls.length >= 2, `${calls.length} calls`);
      const run = await pkg.runAgent('google-gemini', { prompt: QUESTION }, {
        cd: ctx.cwd, env: ctx.env, command: harness.executable('gemini'), model: MODEL, maxRetries: 0,
      });
      assert.equal(run.success, false);
      assert.equal(run.error.kind, envelope.error_kind, JSON.stringify(run.error));
      assert.equal(run.error.retryable, retried);
      assert.equal(run.error.exitCode, envelope.error_detail.exit_code);
      assert.deepEqual(processesIn(ctx.cwd), []);
    } finally {
      cleanUp(ctx);
    }
  });
}

test(`gemini ${version}: an empty reply is retried, then reported`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('empty');
  try {
    const { envelope, calls } = await call(ctx, { max_retries: 1 });
    checkFailure(envelope, 'empty_response', { retries: 1 });
    assert.match(envelope.error_detail.message, /^The model returned an empty response/);
    assert.equal(envelope.error_detail.exit_code, 0); // Gemini CLI exits 0 on it
    // Two attempts of ours, each with Gemini CLI's own retry of the call.
    assert.equal(calls.length, 4);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: a mock that stalls is an idle_timeout, retried, and nothing is left running`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('stall');
  try {
    // 20 s: more than Gemini CLI takes from its first line to its API call,
    // even on a loaded machine (8 s were not, at load 15: the second attempt
    // was stopped before it called).
    const running = call(ctx, { timeout: 20, max_retries: 1 });
    // One process in the folder once it started (the run tells Gemini CLI
    // not to relaunch itself in a second one).
    await waitFor(() => processesIn(ctx.cwd).length >= 1, 20_000, 'Gemini CLI to start');
    const { envelope, calls, elapsedMs } = await running;
    checkFailure(envelope, 'idle_timeout', { retries: 1, limits: [20, 1800] });
    assert.equal(envelope.error, 'Gemini CLI printed nothing for 20 s and was stopped (idle timeout)');
    assert.equal(envelope.error_detail.exit_code, null);
    assert.ok(envelope.error_detail.last_lines.some((l) => l.includes('"type":"init"')));
    assert.equal(calls.length, 2, 'both attempts reached the API and hung there');
    assert.ok(elapsedMs >= 40_500, `${elapsedMs} ms: two idle timeouts of 20 s and a wait of 0.5 s`);
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: a mock that trickles forever hits max_duration: timeout, no time left to retry`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('trickle');
  try {
    // 20 s: time for Gemini CLI to start and stream the mock's pieces, even
    // on a loaded machine (6 s were not, at load 15: none had come).
    const { envelope, calls, elapsedMs } = await call(ctx, { max_duration: 20, max_retries: 2 });
    checkFailure(envelope, 'timeout', { retries: 0, limits: [300, 20] });
    assert.equal(envelope.error_detail.exit_code, null);
    assert.ok(envelope.error_detail.last_lines.some((l) => l.includes('Still thinking about step')));
    assert.equal(calls.length, 1);
    assert.ok(elapsedMs >= 20_000 && elapsedMs < 30_000, `${elapsedMs} ms`);
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: an abort kills the run`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('trickle');
  try {
    const controller = new AbortController();
    const running = call(ctx, { max_retries: 2 }, { signal: controller.signal });
    await waitFor(() => mainCalls(ctx.mock.requests()).length === 1, 20_000, 'the API call');
    controller.abort();
    const { envelope } = await running;
    checkFailure(envelope, 'aborted', { retries: 0 });
    assert.equal(envelope.error_detail.exit_code, null);
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: an unreachable API is a network_error, retried`, { timeout: TEST_TIMEOUT_MS }, async () => {
  // A port that was just free: nothing listens there.
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  const ctx = await setUp('unreachable', { baseUrl: `http://127.0.0.1:${port}` });
  try {
    const { envelope } = await call(ctx, { max_retries: 1 });
    checkFailure(envelope, 'network_error', { retries: 1 });
    assert.match(envelope.error_detail.message, /fetch failed/);
  } finally {
    cleanUp(ctx);
  }
});

test('PATH without gemini: command_not_found, never retried', { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    const { AGENT_CONTEXT_GEMINI_BIN: _, ...env } = ctx.env;
    ctx.env = { ...env, PATH: path.join(ctx.dir, 'tmp') };
    const { envelope, calls } = await call(ctx, { max_retries: 3, return_metrics: true });
    checkFailure(envelope, 'command_not_found', { retries: 0 });
    assert.equal(envelope.error_detail.message, 'spawn gemini ENOENT');
    assert.equal(envelope.error_detail.exit_code, null);
    assert.equal(envelope.metrics.attempts, 1);
    assert.equal(calls.length, 0);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: a SESSION_ID it cannot resume is session_not_found, not retried`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    const { envelope, calls } = await call(ctx, { SESSION_ID: '0e3b3c9a-1111-4222-8333-123456789abc', max_retries: 2 });
    checkFailure(envelope, 'session_not_found', { retries: 0 });
    assert.match(envelope.error, /^SESSION_ID 0e3b3c9a-1111-4222-8333-123456789abc cannot be resumed: start a new session/);
    assert.match(envelope.error_detail.message, /^Error resuming session: /);
    assert.equal(envelope.error_detail.exit_code, 42);
    assert.equal(calls.length, 0);
  } finally {
    cleanUp(ctx);
  }
});

test(`gemini ${version}: no API key is an auth_error, not retried`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    delete ctx.env.GEMINI_API_KEY;
    const { envelope, calls } = await call(ctx, { max_retries: 2 });
    checkFailure(envelope, 'auth_error', { retries: 0 });
    assert.match(envelope.error_detail.message, /you must specify the GEMINI_API_KEY environment variable/);
    assert.equal(envelope.error_detail.exit_code, 41);
    assert.equal(calls.length, 0);
  } finally {
    cleanUp(ctx);
  }
});

/** Runs `agent-context` with `args`, `stdin` and `env`; resolves its status and output. */
function runBin(args, { stdin = '', env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.end(stdin);
  });
}

test(`gemini ${version}: the command, with the prompt on stdin and the engineering context`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  try {
    fs.mkdirSync(path.join(ctx.cwd, 'ai', 'contracts'), { recursive: true });
    fs.writeFileSync(path.join(ctx.cwd, 'ai', 'contracts', 'current.md'), 'Only touch the dashboard.\n');
    const r = await runBin(
      ['gemini', '--cd', ctx.cwd, '--model', MODEL, '--engineering-context', '--return-metrics', '--log-metrics'],
      { stdin: QUESTION, env: ctx.env },
    );
    assert.equal(r.status, 0, r.stderr);
    const envelope = JSON.parse(r.stdout);
    checkSuccess(envelope);
    assert.equal(envelope.result, PLAIN_TEXT);
    const logged = r.stderr.split('\n').filter((l) => l.startsWith('{"tool":"gemini"'));
    assert.equal(logged.length, 1, r.stderr);
    const line = JSON.parse(logged[0]);
    assert.deepEqual([line.success, line.error_kind, line.attempts], [true, null, 1]);
    assert.deepEqual({ ...line, tool: undefined, success: undefined, error_kind: undefined, duration: undefined }, {
      ...envelope.metrics,
      tool: undefined,
      success: undefined,
      error_kind: undefined,
      duration: undefined,
    });
    // The contract went first, then the question.
    const [call0] = mainCalls(ctx.mock.requests());
    const prompt = strings(call0.body).find((s) => s.endsWith(QUESTION));
    assert.ok(prompt.startsWith('【工程上下文】'), prompt);
    assert.ok(prompt.includes('--- ai/contracts/current.md ---\nOnly touch the dashboard.\n\nWhat UI framework'));
  } finally {
    cleanUp(ctx);
  }
});

/** An MCP client (the official v2 client package's) connected to `agent-context mcp` running in `ctx`'s environment. */
async function mcpClient(ctx) {
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: ctx.env, stderr: 'pipe' });
  const client = new Client({ name: 'agent-context-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

test(`gemini ${version}: an MCP client (the official v2 client) calls the tool through \`agent-context mcp\``, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  let client;
  try {
    let transport;
    ({ client, transport } = await mcpClient(ctx));
    const serverPid = transport.pid;
    assert.equal(client.getServerVersion().name, 'agent-context');
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['gemini']);
    assert.deepEqual(tools[0].inputSchema, pkg.geminiToolDefinition().inputSchema);
    assert.deepEqual(Object.keys(tools[0].inputSchema.properties), [
      'PROMPT', 'cd', 'sandbox', 'yolo', 'SESSION_ID', 'model', 'return_all_messages', 'return_metrics',
      'timeout', 'max_duration', 'max_retries', 'log_metrics',
    ]);

    const ok = await client.callTool({ name: 'gemini', arguments: { PROMPT: QUESTION, cd: ctx.cwd, model: MODEL } });
    assert.notEqual(ok.isError, true);
    const envelope = JSON.parse(ok.content[0].text);
    checkSuccess(envelope);
    assert.equal(envelope.result, PLAIN_TEXT);

    const bad = await client.callTool({ name: 'gemini', arguments: { PROMPT: QUESTION, cd: ctx.cwd, session_id: 'x' } });
    assert.equal(bad.isError, true);
    const failure = JSON.parse(bad.content[0].text);
    checkFailure(failure, 'invalid_params', { retries: 0 });
    assert.match(failure.error, /unknown parameter "session_id" \(did you mean SESSION_ID\?\)/);

    await assert.rejects(client.callTool({ name: 'codex', arguments: {} }), /unknown tool "codex"/);
    await client.close();
    await waitFor(() => !alive(serverPid), 10_000, 'the server to exit');
    assert.deepEqual(processesIn(ctx.cwd), []);
  } finally {
    await client?.close().catch(() => {});
    cleanUp(ctx);
  }
});

test(`gemini ${version}: over MCP, a long call reports progress and the client's cancellation kills it`, { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('stall');
  let client;
  try {
    ({ client } = await mcpClient(ctx));
    const controller = new AbortController();
    const progress = [];
    const pending = client.callTool({ name: 'gemini', arguments: { PROMPT: QUESTION, cd: ctx.cwd, model: MODEL, timeout: 60 } }, {
      signal: controller.signal,
      timeout: 60_000,
      // Cancelled once Gemini waits on the API (on a loaded machine its start
      // can outlast the first progress notification).
      onprogress: (p) => {
        progress.push(p);
        if (mainCalls(ctx.mock.requests()).length >= 1) controller.abort();
      },
    });
    await assert.rejects(pending, /abort/i);
    assert.ok(progress.length >= 1);
    for (const p of progress) assert.match(p.message, /^Gemini CLI has been running for \d+ s$/);
    assert.equal(mainCalls(ctx.mock.requests()).length, 1, 'the run was waiting on the API');
    // The server aborted the run: its process group is gone.
    await waitFor(() => processesIn(ctx.cwd).length === 0, 10_000, 'the run to be killed');
  } finally {
    await client?.close().catch(() => {});
    cleanUp(ctx);
  }
});

/** Open file descriptors of this process. */
function openFds() {
  return fs.readdirSync('/proc/self/fd').length;
}

test(`gemini ${version}: 20 runs at once, 6 of them killed on an idle timeout, leave no process and no descriptor behind`, { timeout: 240_000 }, async () => {
  const answering = await setUp('plain');
  const stalling = await setUp('stall');
  try {
    const fdsBefore = openFds();
    const runs = [
      ...Array.from({ length: 14 }, () => call(answering, { max_duration: 150 })),
      ...Array.from({ length: 6 }, () => call(stalling, { timeout: 15, max_retries: 0, max_duration: 150 })),
    ];
    const results = await Promise.all(runs);
    const envelopes = results.map((r) => r.envelope);
    for (const envelope of envelopes.slice(0, 14)) {
      checkSuccess(envelope);
      assert.equal(envelope.result, PLAIN_TEXT);
    }
    for (const envelope of envelopes.slice(14)) checkFailure(envelope, 'idle_timeout', { retries: 0, limits: [15, 150] });
    // Fourteen different sessions.
    assert.equal(new Set(envelopes.slice(0, 14).map((e) => e.SESSION_ID)).size, 14);
    await waitFor(() => processesIn(answering.cwd).length === 0 && processesIn(stalling.cwd).length === 0, 10_000, 'no process left in the run folders');
    await waitFor(() => openFds() <= fdsBefore, 10_000, `descriptors back to ${fdsBefore} (now ${openFds()})`);
  } finally {
    cleanUp(answering);
    cleanUp(stalling);
  }
});
