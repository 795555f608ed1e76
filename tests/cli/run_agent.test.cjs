// runAgent (SPEC §10) on the real Claude Code, Codex and Gemini CLIs (the
// pinned dev dependencies), offline against the mock APIs on 127.0.0.1:
// success, resume (and an unknown session id), a tool call, 5xx with a
// retry, 4xx, 401, 429, idle timeout, abort, a missing command, a 300 KiB
// prompt, and Claude with a 200 KiB system prompt.
//
// Each test has its own temp folder (HOME with a fake key and the base URL,
// the CLI's own retries turned off so that runAgent's are what is seen), a
// mock stopped by its PID, and checks that no process with its HOME is left
// running. Tests of one CLI run concurrently: they share no state.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { processesWithHome, inFreshRun } = require('./processes.cjs');
const { turnCalls, turnsAsking } = require('./requests.cjs');

const TEST_TIMEOUT_MS = 90_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const KIB = 1024;
const UNKNOWN_ID = '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CONCURRENCY = Number(process.env.RUN_AGENT_TEST_CONCURRENCY || 3);

/** A folder, a mock playing `scenario`, a sandboxed HOME with the CLI's retries off. */
async function setUp(cli, scenario) {
  const dir = harness.tempDir(`run-agent-${cli}-${scenario}`);
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  if (cli === 'codex') {
    const config = path.join(box.home, '.codex', 'config.toml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('stream_max_retries = 1', 'stream_max_retries = 0'));
  }
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function cleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** The calls of the agent's turns (not a side call beside them: the mock logs each call's kind). */
function mainCalls(ctx) {
  return turnCalls(ctx.mock.requests());
}

/** The one turn call asking `needle` (its last user message holds it): that turn's own request. */
function turnAsking(ctx, needle) {
  const found = turnsAsking(ctx.mock.requests(), needle);
  assert.equal(found.length, 1, `one turn call asking ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}

function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** runAgent in `ctx` on the sample conversation (or `request`). */
function run(ctx, { request, ...options } = {}) {
  const { agentType } = harness.CLIS[ctx.cli];
  return pkg.runAgent(agentType, request ?? { ...pkg.sampleInput(), currentMessage: 'What UI framework should we use?' }, {
    cd: ctx.cwd,
    command: harness.executable(ctx.cli),
    model: harness.MODELS[ctx.cli],
    env: ctx.env,
    timeout: 30,
    maxDuration: 60,
    maxRetries: 0,
    ...options,
  });
}

/** Runs `body(ctx)` in a fresh setup, then checks nothing is left running and cleans up. */
function within(cli, scenario, body) {
  return inFreshRun(() => setUp(cli, scenario), cleanUp, body);
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
}

for (const cli of Object.keys(harness.CLIS)) {
  const version = harness.installedVersion(cli);
  describe(`runAgent: ${cli} ${version}`, { concurrency: CONCURRENCY }, () => {
    test('a plain answer, with live events', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const events = [];
        const result = await run(ctx, { onEvent: (e) => events.push(e) });
        assert.equal(result.success, true, JSON.stringify(result.error));
        assert.equal(result.reply.text, PLAIN_TEXT);
        assert.equal(result.agentType, harness.CLIS[cli].agentType);
        assert.match(result.sessionId, /^[0-9a-f-]{36}$/);
        assert.equal(result.attempts, 1);
        assert.equal(result.error, undefined);
        assert.equal(events.filter((e) => e.type === 'text').map((e) => e.text).join(''), PLAIN_TEXT);
        assert.ok(events.some((e) => e.type === 'session' && e.sessionId === result.sessionId));
      }));

    test('resume: the same session, and an unknown id is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const first = await run(ctx, { request: { prompt: 'First question: colours?' } });
        assert.equal(first.success, true, JSON.stringify(first.error));
        const second = await run(ctx, { request: { prompt: 'Second question: fonts?' }, sessionId: first.sessionId });
        assert.equal(second.success, true, JSON.stringify(second.error));
        assert.equal(second.sessionId, first.sessionId);
        assert.equal(second.requestedSessionId, first.sessionId);
        assert.ok(strings(turnAsking(ctx, 'Second question: fonts?').body).some((t) => t.includes('First question: colours?')));

        const unknown = await run(ctx, { request: { prompt: 'Third question' }, sessionId: UNKNOWN_ID });
        failedWith(unknown, 'session_not_found');
        assert.equal(unknown.requestedSessionId, UNKNOWN_ID);
        assert.equal(unknown.error.retryable, false);
        // Each CLI says it its own way (each agent's signs, in its file in src/agents/).
        const said = { claude: /No conversation found/, codex: /no rollout found/, gemini: /Error resuming session/ }[cli];
        assert.match(unknown.error.message, said);
        if (cli === 'codex') {
          // An id that is no UUID: Codex starts a new thread and exits 0.
          const other = await run(ctx, { request: { prompt: 'Fourth question' }, sessionId: 'not-a-thread-id' });
          failedWith(other, 'session_not_found');
          assert.match(other.error.message, /answered in a new session/);
          assert.equal(other.error.exitCode, 0);
          assert.notEqual(other.sessionId, 'not-a-thread-id');
        }
      }));

    test('a tool call, then the answer', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'tool', async (ctx) => {
        const result = await run(ctx, { request: { prompt: 'Read notes.txt and tell me the launch code.' } });
        assert.equal(result.success, true, JSON.stringify(result.error));
        assert.match(result.reply.text, /The notes say the launch code is 4217\.$/);
        assert.equal(result.reply.toolUses.length, 1);
        assert.equal(result.reply.toolUses[0].status, 'success');
        assert.equal(mainCalls(ctx).length, 2);
      }));

    test('HTTP 500 once: runAgent retries and succeeds', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'flaky500', async (ctx) => {
        const result = await run(ctx, { maxRetries: 1 });
        assert.equal(result.success, true, JSON.stringify(result.error));
        // Gemini CLI retries the call itself (maxRetries also sets its own
        // general.maxAttempts, in the run's home): one attempt of ours.
        assert.equal(result.attempts, cli === 'gemini' ? 1 : 2);
        assert.equal(result.reply.text, PLAIN_TEXT);
        assert.equal(mainCalls(ctx).length, 2);
      }));

    test('HTTP 500 every time: upstream_error after the retry', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const result = await run(ctx, { maxRetries: 1 });
        failedWith(result, 'upstream_error');
        assert.equal(result.attempts, 2);
        assert.equal(result.error.retryable, true);
        assert.equal(result.error.exitCode, cli === 'gemini' ? 244 : 1);
        assert.ok(result.error.lastLines.length > 0);
      }));

    test('HTTP 400: request_rejected, not retried', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'reject', async (ctx) => {
        const result = await run(ctx, { maxRetries: 1 });
        failedWith(result, 'request_rejected');
        assert.equal(result.attempts, 1);
        assert.equal(result.error.retryable, false);
        assert.match(result.error.message, /Mock rejects this request: temperature is out of range/);
      }));

    test('HTTP 401: auth_error', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'auth', async (ctx) => {
        const result = await run(ctx, { maxRetries: 1 });
        failedWith(result, 'auth_error');
        assert.equal(result.attempts, 1);
      }));

    test('HTTP 429: quota_exceeded', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'quota', async (ctx) => {
        const result = await run(ctx);
        failedWith(result, 'quota_exceeded');
        assert.equal(result.error.retryable, true);
      }));

    test('a stalled stream: idle_timeout, and the process tree is gone', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const started = Date.now();
        const result = await run(ctx, { timeout: 3 });
        failedWith(result, 'idle_timeout');
        assert.equal(result.error.exitCode, null);
        assert.equal(result.attempts, 1);
        assert.ok(Date.now() - started < 30_000);
      }));

    test('abort: the run ends at once as aborted, nothing left running', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const controller = new AbortController();
        let abortedAt = 0;
        const poll = setInterval(() => {
          if (mainCalls(ctx).length > 0 && !abortedAt) {
            abortedAt = Date.now();
            controller.abort();
          }
        }, 50);
        try {
          const result = await run(ctx, { signal: controller.signal, maxRetries: 2 });
          failedWith(result, 'aborted');
          assert.equal(result.attempts, 1);
          assert.ok(Date.now() - abortedAt < 2_000, 'ended soon after the abort');
        } finally {
          clearInterval(poll);
        }
      }));

    test('killed from outside mid-run: incomplete', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        let killed = 0;
        const poll = setInterval(() => {
          if (killed || mainCalls(ctx).length === 0) return;
          // The CLI's processes (all of them, had it started a child).
          for (const pid of processesWithHome(ctx.home)) {
            try {
              process.kill(pid, 'SIGKILL');
              killed += 1;
            } catch {
              // gone already
            }
          }
        }, 50);
        try {
          const result = await run(ctx, { maxRetries: 2 });
          assert.ok(killed > 0);
          failedWith(result, 'incomplete');
          assert.equal(result.attempts, 1, 'not retried: the agent may have acted before it died');
          assert.match(result.error.message, /without its final event/);
        } finally {
          clearInterval(poll);
        }
      }));

    test('a missing command: command_not_found, never retried', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const result = await run(ctx, { command: path.join(ctx.dir, 'no-such-cli'), maxRetries: 3 });
        failedWith(result, 'command_not_found');
        assert.equal(result.attempts, 1);
        assert.match(result.error.message, /does not exist/);
        // And by name, on a PATH that does not have it.
        const byName = await run(ctx, { command: undefined, env: { ...ctx.env, PATH: ctx.dir } });
        failedWith(byName, 'command_not_found');
        assert.match(byName.error.message, new RegExp(`\`${harness.CLIS[cli].bin}\` is not on PATH`));
      }));

    test('a 300 KiB prompt travels on stdin', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const prompt = `${'Please weigh every option carefully. '.repeat(Math.ceil((300 * KIB) / 37))}End.`;
        assert.ok(Buffer.byteLength(prompt) >= 300 * KIB);
        const result = await run(ctx, { request: { prompt } });
        assert.equal(result.success, true, JSON.stringify(result.error));
        assert.ok(strings(mainCalls(ctx)[0].body).some((t) => t.includes(prompt)), 'the whole prompt reached the API');
      }));
  });
}

test('claude: a 200 KiB system prompt goes through a file, removed after', { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'plain', async (ctx) => {
    const systemFlag = `You are Carol. ${'Keep the accessibility guide in mind. '.repeat(Math.ceil((200 * KIB) / 37))}`;
    const scratch = () => require('./processes.cjs').runFolders();
    const before = scratch();
    const result = await run(ctx, { request: { prompt: 'What UI framework should we use?', systemFlag } });
    assert.equal(result.success, true, JSON.stringify(result.error));
    const system = strings(mainCalls(ctx)[0].body.system).join('\n');
    assert.ok(system.includes(systemFlag), 'the system prompt holds our 200 KiB systemFlag');
    assert.deepEqual(scratch(), before, 'the system prompt file is removed');
  }));

test('claude: one-shot, then resumed with its sessionId: the second request holds the first reply verbatim and the model asked for', { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'plain', async (ctx) => {
    const model = 'claude-mock-resume-7';
    const first = await run(ctx, { model, request: { prompt: 'First question: delta-4410?' } });
    assert.equal(first.success, true, JSON.stringify(first.error));
    assert.equal(first.reply.text, PLAIN_TEXT);
    const second = await run(ctx, { model, sessionId: first.sessionId, request: { prompt: 'Second question: echo-8821?' } });
    assert.equal(second.success, true, JSON.stringify(second.error));
    assert.equal(second.sessionId, first.sessionId);
    assert.equal(second.requestedSessionId, first.sessionId);
    turnAsking(ctx, 'delta-4410');
    const last = turnAsking(ctx, 'echo-8821');
    // Every model request of both runs' turns names the model asked for (a
    // side call beside them may go to the agent's small model).
    for (const call of mainCalls(ctx)) assert.equal(call.body.model, model, call.url);
    // The first turn's question and its reply, verbatim, as an assistant message.
    const messages = last.body.messages;
    assert.ok(strings(messages).some((s) => s.includes('delta-4410')), 'the first question is in the history');
    const assistant = messages.filter((m) => m.role === 'assistant').map((m) => (typeof m.content === 'string' ? m.content : m.content.filter((b) => b.type === 'text').map((b) => b.text).join('')));
    assert.ok(assistant.includes(first.reply.text), `the first reply verbatim: ${JSON.stringify(assistant)}`);
  }));

/** `agent-context run …` with `stdin`; resolves `{ code, stdout, stderr }`. */
function cli(args, stdin, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(harness.ROOT, 'bin', 'agent-context.js'), 'run', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.end(stdin);
  });
}

test('agent-context run: the AgentRun as JSON; exit 0, 1 on a failure, 2 on bad input', { timeout: TEST_TIMEOUT_MS }, () =>
  within('codex', 'plain', async (ctx) => {
    const common = ['--cd', ctx.cwd, '--command', harness.executable('codex'), '--model', harness.MODELS.codex, '--max-retries', '0'];
    const env = { ...ctx.env, PATH: process.env.PATH };
    const ok = await cli(['openai-codex', ...common], 'What UI framework should we use?', env);
    assert.equal(ok.code, 0, ok.stderr);
    const run = JSON.parse(ok.stdout);
    assert.equal(run.success, true);
    assert.equal(run.reply.text, PLAIN_TEXT);
    // An AssemblerInput with --json, resuming that session.
    const input = JSON.stringify({ ...pkg.sampleInput(), currentMessage: 'And the fonts?' });
    const resumed = await cli(['openai-codex', ...common, '--json', '--session', run.sessionId], input, env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(JSON.parse(resumed.stdout).sessionId, run.sessionId);
    const unknown = await cli(['openai-codex', ...common, '--session', UNKNOWN_ID], 'Hi', env);
    assert.equal(unknown.code, 1);
    assert.equal(JSON.parse(unknown.stdout).error.kind, 'session_not_found');
    assert.match(unknown.stderr, /openai-codex failed \(session_not_found\)/);
    const bad = await cli(['openai-codex', '--cd', path.join(ctx.dir, 'missing')], 'Hi', env);
    assert.equal(bad.code, 2);
    assert.equal(JSON.parse(bad.stdout).error.kind, 'invalid_params');
    const usage = await cli(['openai-codex'], 'Hi', env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--cd is required/);
  }));
