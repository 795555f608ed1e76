// runAgent over the Agent Client Protocol (SPEC §12) on the real agents,
// offline against the mock APIs on 127.0.0.1: Claude Code through
// @agentclientprotocol/claude-agent-acp, Codex through
// @agentclientprotocol/codex-acp (both pinned in tests/agents/package.json),
// `gemini --acp`. ACP_ADAPTER_SCOPE=@zed-industries runs Zed's frozen
// adapters pinned beside them instead (tests/acp/adapters.cjs).
//
// Each test has its own folder (under target/: codex-acp refuses a
// CODEX_HOME under /tmp) with a HOME holding a fake key and the mock's URL,
// the agent's own retries off, a mock stopped by its PID, and checks that no
// process with its HOME is left running. Tests of one agent run
// concurrently: they share no state.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES, WRITE_FILE, WRITE_TEXT } = require('../cli/mocks/common.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnsAsking } = require('../cli/requests.cjs');
const { waitFor } = require('../cli/wait.cjs');

const TEST_TIMEOUT_MS = 120_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const UNKNOWN_ID = '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const CONCURRENCY = Number(process.env.ACP_TEST_CONCURRENCY || 3);
const { ADAPTERS, ADAPTER_SCOPE, CODEX_MODEL } = require('./adapters.cjs');
// codex-acp wants a model slug Codex knows (else a warning comes as text).
const ACP_MODELS = { ...harness.MODELS, codex: CODEX_MODEL };
const BASE = path.join(harness.ROOT, 'target', 'acp-live');
const SYSTEM_MARK = 'Answer as the mock team lead (system mark 7741).';

/** A folder, a mock playing `scenario`, a sandboxed HOME with the agent's retries off. */
async function setUp(cli, scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${cli}-${scenario}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  if (cli === 'codex') {
    const config = path.join(box.home, '.codex', 'config.toml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('stream_max_retries = 1', 'stream_max_retries = 0'));
  }
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

/** The calls of the agent's turns, not the side calls beside them (Claude's
 * adapter asks for a session title and a suggestion of the next prompt in
 * parallel, Codex's for a title of a new thread: the mock logs each kind). */
function mainCalls(ctx) {
  return ctx.mock.turns();
}

/** The one turn call that asks `needle` (its last user message holds it). */
function turnAsking(ctx, needle) {
  const found = turnsAsking(ctx.mock.requests(), needle);
  assert.equal(found.length, 1, `one turn call asking ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}

/** The text of a message's content (a string, or its text blocks). */
function contentText(content) {
  return typeof content === 'string' ? content : content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** runAgent over ACP in `ctx`. */
function runAcp(ctx, { request, ...options } = {}) {
  return pkg.runAgent(harness.CLIS[ctx.cli].agentType, request ?? { prompt: 'Which UI framework should we use?', systemFlag: SYSTEM_MARK }, {
    protocol: 'acp',
    cd: ctx.cwd,
    command: ADAPTERS[ctx.cli],
    model: ACP_MODELS[ctx.cli],
    env: ctx.env,
    timeout: 30,
    maxDuration: 90,
    maxRetries: 0,
    ...options,
  });
}

/** Runs `body(ctx)` in a fresh setup, then checks nothing is left running and cleans up. */
function within(cli, scenario, body) {
  return inFreshRun(() => setUp(cli, scenario), (ctx) => {
    ctx.mock.stop();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }, body);
}

function succeeded(result) {
  assert.equal(result.success, true, JSON.stringify(result.error));
  assert.equal(result.error, undefined);
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
}

const written = (ctx) => path.join(ctx.cwd, WRITE_FILE);
const writtenOutside = (ctx) => path.join(path.dirname(ctx.cwd), WRITE_FILE);

for (const cli of ['claude', 'gemini', 'codex']) {
  describe(`runAgent over ACP: ${cli}`, { concurrency: CONCURRENCY }, () => {
    test('hello: a plain answer in a new session, the system prompt where the agent takes it', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const result = await runAcp(ctx);
        succeeded(result);
        assert.equal(result.reply.text, PLAIN_TEXT);
        assert.equal(result.agentType, harness.CLIS[cli].agentType);
        assert.ok(typeof result.sessionId === 'string' && result.sessionId.length > 0, JSON.stringify(result));
        assert.equal(result.reply.sessionId, result.sessionId);
        assert.equal(result.reply.status, 'success');
        assert.equal(result.attempts, 1);
        const [call] = mainCalls(ctx);
        assert.ok(call, `${cli} called its API`);
        if (cli === 'claude') {
          // `systemPrompt` (the maintained adapter advertises it) or Zed's
          // `_meta.systemPrompt.append` on session/new: in the system prompt, not the message.
          assert.ok(strings(call.body.system).join('\n').includes(SYSTEM_MARK), 'the system prompt holds our systemFlag');
          assert.ok(!strings(call.body.messages).join('\n').includes(SYSTEM_MARK));
        } else if (cli === 'codex' && ADAPTER_SCOPE === '@agentclientprotocol') {
          // codex-acp 2.6.0 advertises `systemPrompt`: Codex's developer message, not the user's.
          const holding = (call.body.input ?? []).filter((item) => strings(item).some((s) => s.includes(SYSTEM_MARK)));
          assert.deepEqual(holding.map((item) => item.role), ['developer'], 'the instructions are a developer message');
        } else {
          assert.ok(strings(call.body).some((s) => s.includes(`${SYSTEM_MARK}\n\nWhich UI framework`)), 'the instructions open the prompt');
        }
      }));

    test('the same prompt and mock answer give the same reply.text over cli and over acp', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const request = { prompt: 'Which UI framework should we use?' };
        const overAcp = await runAcp(ctx, { request });
        const overCli = await pkg.runAgent(harness.CLIS[cli].agentType, request, {
          cd: ctx.cwd, command: harness.executable(cli), model: harness.MODELS[cli], env: ctx.env, timeout: 30, maxDuration: 90, maxRetries: 0,
        });
        succeeded(overAcp);
        succeeded(overCli);
        assert.equal(overAcp.reply.text, overCli.reply.text);
        assert.equal(overAcp.reply.text, PLAIN_TEXT);
      }));

    test('an HTTP 500 is upstream_error (the agent does not retry)', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const result = await runAcp(ctx);
        failedWith(result, 'upstream_error');
        assert.equal(result.error.retryable, true);
        assert.equal(result.reply.status, 'error');
      }));

    test('abort during the turn: cancelled, the tree killed, nothing left running', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const controller = new AbortController();
        const started = Date.now();
        const pending = runAcp(ctx, { signal: controller.signal });
        // Once the model call hangs, the turn is under way.
        await waitFor(() => mainCalls(ctx).length > 0, 60_000, `${cli}'s model call`);
        controller.abort();
        const result = await pending;
        failedWith(result, 'aborted');
        assert.ok(Date.now() - started < 60_000);
      }));

    test('an idle timeout: session/cancel, then the kill', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const result = await runAcp(ctx, { timeout: 4 });
        failedWith(result, 'idle_timeout');
      }));

    {
      test('a write allowed by the policy (workspace-write) lands in cd; onEvent gets the reply as it streams', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'write', async (ctx) => {
          const events = [];
          const result = await runAcp(ctx, { sandbox: 'workspace-write', onEvent: (event) => events.push(event) });
          succeeded(result);
          assert.equal(fs.readFileSync(written(ctx), 'utf8'), WRITE_TEXT);
          assert.match(result.reply.text, /The write tool answered/);
          assert.ok(result.reply.toolUses.length >= 1, JSON.stringify(result.reply));
          // The events add up to the reply: its text, and each tool's last state.
          const text = events.filter((e) => e.type === 'text').map((e) => e.text).join('');
          assert.equal(text, result.reply.text);
          const lastTools = new Map(events.filter((e) => e.type === 'toolUse').map((e) => [e.toolUse.id, e.toolUse]));
          assert.deepEqual([...lastTools.values()], result.reply.toolUses);
        }));

      test('a write rejected: by the read-only policy, and by onPermission', { timeout: TEST_TIMEOUT_MS }, async () => {
        await within(cli, 'write', async (ctx) => {
          await runAcp(ctx, { sandbox: 'read-only' });
          assert.equal(fs.existsSync(written(ctx)), false, 'read-only: nothing written');
        });
        await within(cli, 'write', async (ctx) => {
          const asked = [];
          await runAcp(ctx, { yolo: true, onPermission: (request) => (asked.push(request), 'reject') });
          assert.equal(fs.existsSync(written(ctx)), false, 'rejected: nothing written');
          assert.equal(asked.length, 1, `${cli} asked once`);
          assert.equal(asked[0].toolCall.kind, 'edit');
        });
      });

      test('a write outside cd is refused', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'writeOutside', async (ctx) => {
          const result = await runAcp(ctx);
          // The path is in the tool call, or (codex-acp 2.6.0 in `read-only`,
          // whose permission request names it only in `locations`, which a
          // ToolUse does not keep) an edit was asked for.
          const tried = JSON.stringify(result.reply.toolUses).includes(WRITE_FILE) || result.reply.toolUses.some((t) => t.name === 'edit');
          assert.ok(tried, `${cli} tried the write: ${JSON.stringify(result.reply.toolUses)}`);
          assert.equal(fs.existsSync(writtenOutside(ctx)), false, 'nothing written outside cd');
        }));
    }
  });
}

describe('runAgent over ACP: sessions', { concurrency: CONCURRENCY }, () => {
  for (const cli of ['claude', 'codex']) test(`${cli}: resume the session of a first run; an unknown id is session_not_found`, { timeout: TEST_TIMEOUT_MS }, () =>
    within(cli, 'plain', async (ctx) => {
      const first = await runAcp(ctx);
      succeeded(first);
      const second = await runAcp(ctx, { sessionId: first.sessionId, request: { prompt: 'And for the admin pages?' } });
      succeeded(second);
      assert.equal(second.sessionId, first.sessionId);
      assert.equal(second.requestedSessionId, first.sessionId);
      // The resumed conversation reached the API with the first turn in it.
      const last = turnAsking(ctx, 'And for the admin pages?');
      assert.ok(strings(last.body.messages ?? last.body.input).some((s) => s.includes('Which UI framework')));
      const unknown = await runAcp(ctx, { sessionId: UNKNOWN_ID });
      failedWith(unknown, 'session_not_found');
    }));

  test('claude: one-shot, then resumed with its sessionId: the second request holds the first reply verbatim and the model asked for', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const model = 'claude-mock-resume-7';
      const first = await runAcp(ctx, { model, request: { prompt: 'First question: delta-4410?' } });
      succeeded(first);
      assert.equal(first.reply.text, PLAIN_TEXT);
      const second = await runAcp(ctx, { model, sessionId: first.sessionId, request: { prompt: 'Second question: echo-8821?' } });
      succeeded(second);
      assert.equal(second.sessionId, first.sessionId);
      const last = turnAsking(ctx, 'echo-8821');
      // Every model request of both turns names the model asked for (a side
      // call beside them may go to the agent's small model).
      for (const call of mainCalls(ctx)) assert.equal(call.body.model, model, call.url);
      // The first turn's question and its reply, verbatim, as an assistant message.
      const messages = last.body.messages;
      assert.ok(strings(messages).some((s) => s.includes('delta-4410')), 'the first question is in the history');
      const assistant = messages.filter((m) => m.role === 'assistant').map((m) => contentText(m.content));
      assert.ok(assistant.includes(first.reply.text), `the first reply verbatim: ${JSON.stringify(assistant)}`);
    }));

  test("gemini: a session id is session_not_found (0.61's load erases the history)", { timeout: TEST_TIMEOUT_MS }, () =>
    within('gemini', 'plain', async (ctx) => {
      const first = await runAcp(ctx);
      succeeded(first);
      const calls = mainCalls(ctx).length;
      const second = await runAcp(ctx, { sessionId: first.sessionId });
      failedWith(second, 'session_not_found');
      assert.match(second.error.message, /erases/);
      assert.equal(mainCalls(ctx).length, calls, 'no model call: no silent new session');
    }));

  test('gemini: a write outside cd through the client fs is refused even with yolo', { timeout: TEST_TIMEOUT_MS }, () =>
    within('gemini', 'writeOutside', async (ctx) => {
      const result = await runAcp(ctx, { yolo: true });
      assert.ok(JSON.stringify(result.reply.toolUses).includes(WRITE_FILE), `gemini tried the write: ${JSON.stringify(result.reply.toolUses)}`);
      assert.equal(fs.existsSync(writtenOutside(ctx)), false);
    }));
});

test('agent-context run --protocol acp prints the AgentRun (Claude)', { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'plain', async (ctx) => {
    const bin = path.join(harness.ROOT, 'bin', 'agent-context.js');
    const child = spawn(process.execPath, [bin, 'run', 'claude-code', '--protocol', 'acp', '--cd', ctx.cwd, '--command', ADAPTERS.claude, '--timeout', '30', '--max-retries', '0'], { env: ctx.env });
    const out = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stdin.end('Which UI framework should we use?');
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 0);
    const result = JSON.parse(Buffer.concat(out).toString('utf8'));
    assert.equal(result.success, true);
    assert.equal(result.reply.text, PLAIN_TEXT);
  }));
