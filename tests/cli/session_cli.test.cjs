// Sessions over the agents' own command lines (openAgentSession with
// protocol 'cli'), offline against the mock APIs on 127.0.0.1: Claude Code
// keeps one process (--input-format stream-json); Codex and Gemini CLI start
// a process per turn and resume the session. Each test has its own folder,
// HOME and mock, and checks that nothing of its HOME is left running after
// close().
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { inFreshRun, processesWithHome } = require('./processes.cjs');
const { turnsAsking } = require('./requests.cjs');
const { waitFor } = require('./wait.cjs');

const TEST_TIMEOUT_MS = 180_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const BASE = path.join(harness.ROOT, 'target', 'cli-sessions');

async function setUp(cli, scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${cli}-${scenario}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function within(cli, scenario, body) {
  return inFreshRun(() => setUp(cli, scenario), (ctx) => {
    ctx.mock.stop();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }, body);
}

function open(ctx, options = {}) {
  return pkg.openAgentSession(harness.CLIS[ctx.cli].agentType, {
    protocol: 'cli',
    cd: ctx.cwd,
    command: harness.executable(ctx.cli),
    model: harness.MODELS[ctx.cli],
    env: ctx.env,
    timeout: 60,
    maxDuration: 120,
    maxRetries: 0,
    ...options,
  });
}

/** The calls of the agent's turns (not a side call beside them: the mock logs each call's kind). */
const mainCalls = (ctx) => ctx.mock.turns();
/** The one turn call asking `needle` (its last user message holds it): that turn's own request. */
function turnAsking(ctx, needle) {
  const found = turnsAsking(ctx.mock.requests(), needle);
  assert.equal(found.length, 1, `one turn call asking ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}
const bodyText = (request) => JSON.stringify(request.body);

/** The PIDs of this run's processes started with streaming input (Claude Code's session process). */
function streamingPids(home) {
  return processesWithHome(home).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes('--input-format');
    } catch {
      return false;
    }
  });
}

function succeeded(turn) {
  assert.equal(turn.success, true, JSON.stringify(turn.error));
}

describe('sessions over the CLI: Claude Code keeps one process', { concurrency: 2 }, () => {
  test('three turns in one process and one session; each model request holds the earlier turns', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const session = await open(ctx);
      assert.equal(session.protocol, 'cli');
      assert.equal(session.persistent, true);
      const prompts = ['First question: alpha-7731?', 'Second question: beta-2294?', 'Third question: gamma-5518?'];
      let pid;
      let sessionId;
      for (const text of prompts) {
        const events = [];
        const turn = await session.prompt(text, { onEvent: (e) => events.push(e) });
        succeeded(turn);
        assert.equal(turn.reply.text, PLAIN_TEXT);
        assert.equal(turn.stopReason, 'end_turn');
        assert.ok(events.length > 0, 'the reply came as events too');
        sessionId ??= turn.sessionId;
        assert.ok(sessionId, 'the session id came from its lines');
        assert.equal(turn.sessionId, sessionId, 'one session');
        const pids = streamingPids(ctx.home);
        assert.equal(pids.length, 1, `one session process: ${pids}`);
        pid ??= pids[0];
        assert.equal(pids[0], pid, 'the same process answered every turn');
      }
      assert.equal(session.sessionId, sessionId);
      // One model request per turn (turnAsking asserts it).
      const last = prompts.map((p) => turnAsking(ctx, p)).at(-1);
      for (const text of prompts) assert.ok(bodyText(last).includes(text), `the third request holds "${text}"`);
      assert.ok(bodyText(last).split(PLAIN_PIECES[1].trim()).length - 1 >= 2, 'the third request holds the earlier replies');
      await session.close();
      assert.deepEqual(streamingPids(ctx.home), [], 'the process is gone after close()');
    }));

  test('a cancelled turn (an interrupt, the process kept), then a good one', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'stallOnce', async (ctx) => {
      const session = await open(ctx);
      const stalled = session.prompt('This one stalls.');
      await waitFor(() => mainCalls(ctx).length > 0, 60_000, 'the stalled request to reach the mock');
      const [pid] = streamingPids(ctx.home);
      const cancelledAt = Date.now();
      await session.cancel();
      const cancelled = await stalled;
      assert.equal(cancelled.success, false);
      assert.equal(cancelled.error.kind, 'aborted', JSON.stringify(cancelled.error));
      assert.equal(cancelled.stopReason, 'cancelled');
      assert.ok(Date.now() - cancelledAt < 4000, 'ended by the interrupt, not by the kill after the grace');
      const good = await session.prompt('And now?');
      succeeded(good);
      assert.equal(good.reply.text, PLAIN_TEXT);
      assert.deepEqual(streamingPids(ctx.home), [pid], 'the same process answered after the interrupt');
      assert.ok(bodyText(turnAsking(ctx, 'And now?')).includes('This one stalls.'), 'the good turn is in the same session');
      await session.close();
    }));

  test('setModel reaches the running process; modes are refused naming the agent', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const session = await open(ctx);
      await session.setModel('claude-mock-2');
      succeeded(await session.prompt('Which model?'));
      assert.equal(turnAsking(ctx, 'Which model?').body.model, 'claude-mock-2');
      await assert.rejects(session.setMode('plan'), (err) => err.code === 'INVALID_INPUT' && /Claude Code/.test(err.message));
      await session.close();
    }));
});

for (const cli of ['codex', 'gemini']) {
  describe(`sessions over the CLI: ${cli}, a process per turn`, { concurrency: 2 }, () => {
    test('two turns in one session; the second request holds the first', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const session = await open(ctx);
        assert.equal(session.protocol, 'cli');
        assert.equal(session.persistent, false);
        assert.deepEqual(processesWithHome(ctx.home), [], 'nothing runs between turns');
        const first = await session.prompt('First question: alpha-7731?');
        succeeded(first);
        assert.equal(first.reply.text, PLAIN_TEXT);
        assert.ok(first.sessionId);
        const second = await session.prompt('Second question: beta-2294?');
        succeeded(second);
        assert.equal(second.sessionId, first.sessionId, 'the same session');
        assert.equal(second.requestedSessionId, first.sessionId, 'resumed, verified');
        const last = turnAsking(ctx, 'beta-2294');
        assert.ok(bodyText(last).includes('alpha-7731'), 'the second request holds the first prompt');
        await session.close();
      }));
  });
}
