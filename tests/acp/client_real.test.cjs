// The client's own features on the real agents that use them, offline
// against the mocks: Claude Code's adapter (@agentclientprotocol/
// claude-agent-acp) asks its AskUserQuestion tool's question as a form
// elicitation, and forks a session (session/fork); Factory Droid runs its
// Execute tool in a client terminal when the client offers terminals.
// (Codex's adapter, Claude's, Gemini CLI and Qwen Code use no client
// terminals; none of the agents here offers its model a plan tool by
// default: tests/acp/client.test.cjs checks plans, outputSchema over ACP
// and the trace context on a scripted agent.)
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const chat = require('../cli/openai_chat_agents.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnsAsking } = require('../cli/requests.cjs');
const { ADAPTERS } = require('./adapters.cjs');

const TEST_TIMEOUT_MS = 240_000;
const BASE = path.join(harness.ROOT, 'target', 'acp-live');

async function claudeSetUp(scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `claude-client-${scenario}-`));
  const mock = await harness.startMock('anthropic', scenario, dir);
  const box = harness.sandbox('claude', mock, dir);
  box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  return { dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function claudeCleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

const claudeOptions = (ctx, more = {}) => ({ protocol: 'acp', cd: ctx.cwd, command: ADAPTERS.claude, model: harness.MODELS.claude, env: ctx.env, timeout: 60, maxDuration: 150, maxRetries: 0, ...more });
const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};

test('Claude Code over ACP: its AskUserQuestion comes as a form elicitation, and the answer reaches the model', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(() => claudeSetUp('ask'), claudeCleanUp, async (ctx) => {
    const asked = [];
    const run = await pkg.runAgent('claude-code', { prompt: 'Pick a database with me.' }, claudeOptions(ctx, {
      onElicitation: (request) => {
        asked.push(request);
        const [field] = Object.keys(request.requestedSchema.properties);
        return { action: 'accept', content: { [field]: 'SQLite' } };
      },
    }));
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, 'form');
    assert.equal(asked[0].message, 'Which database should the service use?');
    assert.equal(asked[0].toolCallId, 'toolu_mock_ask');
    assert.deepEqual(asked[0].requestedSchema.properties.question_0.oneOf.map((o) => o.const), ['Postgres', 'SQLite']);
    assert.match(run.reply.text, /The user answered: .*SQLite/);
    const ask = run.reply.toolUses.find((t) => t.name === 'AskUserQuestion');
    assert.equal(ask.status, 'success');
    assert.match(ask.output, /"SQLite"/);
  }));

test('Claude Code over ACP without onElicitation: elicitation is not advertised and the turn does not hang', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(() => claudeSetUp('ask'), claudeCleanUp, async (ctx) => {
    const started = Date.now();
    const run = await pkg.runAgent('claude-code', { prompt: 'Pick a database with me.' }, claudeOptions(ctx));
    assert.ok(Date.now() - started < 60_000, 'ended well before its deadline');
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.doesNotMatch(run.reply.text, /SQLite/);
  }));

test('Claude Code over ACP forks a session: the fork holds the turn before it, the original goes on', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(() => claudeSetUp('plain'), claudeCleanUp, async (ctx) => {
    const { protocol: _p, ...options } = claudeOptions(ctx);
    const agent = await pkg.openAgent('claude-code', options);
    try {
      assert.ok(agent.capabilities.sessionCapabilities?.fork, 'the adapter advertises session/fork');
      const session = await agent.newSession();
      const first = await session.prompt('Remember the word MARIGOLD.');
      assert.equal(first.success, true, JSON.stringify(first.error));
      const fork = await session.fork();
      assert.equal(fork.forkedFrom, session.sessionId);
      assert.notEqual(fork.sessionId, session.sessionId);
      const forked = await fork.prompt('Which word did I ask you to remember?');
      assert.equal(forked.success, true, JSON.stringify(forked.error));
      assert.equal(forked.sessionId, fork.sessionId);
      // The fork's own turn call (not the adapter's suggestion of a next
      // prompt after the first turn, which holds that turn too).
      const [call] = turnsAsking(ctx.mock.requests(), 'Which word did I ask you to remember?');
      assert.ok(call && strings(call.body.messages).some((s) => s.includes('MARIGOLD')), 'the fork holds the first turn');
      const again = await session.prompt('And now?');
      assert.equal(again.success, true, JSON.stringify(again.error));
      assert.equal(again.sessionId, session.sessionId);
    } finally {
      await agent.close();
    }
  }));

const DROID = { FACTORY_API_KEY: 'fk-placeholder-not-a-key' };

test('Factory Droid runs its Execute tool in a client terminal, inside cd, when terminals are on', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(() => chat.freshRun('droid', 'shell', path.join(chat.ROOT, 'target', 'acp-only-live')), chat.endFreshRun, async (ctx) => {
    // What the host was told to start (its process layer, observed).
    const { TerminalHost } = require(path.join(harness.ROOT, 'pkg', 'node', 'terminals.cjs'));
    const started = [];
    const start = TerminalHost.prototype.start;
    TerminalHost.prototype.start = function observed(launch) {
      started.push(launch);
      return start.call(this, launch);
    };
    try {
      const run = await pkg.runAgent('factory-droid', { prompt: 'Run cat notes.txt and tell me the launch code.' }, {
        cd: ctx.cwd,
        command: chat.executable('droid'),
        env: { ...ctx.env, ...DROID },
        endpoint: { baseUrl: `http://127.0.0.1:${ctx.mock.port}/v1`, apiKey: chat.FAKE_KEY, model: chat.MODEL },
        timeout: 60,
        maxDuration: 150,
        maxRetries: 0,
        terminals: true,
        onPermission: () => 'allow',
      });
      assert.equal(run.success, true, JSON.stringify(run.error));
      assert.equal(run.reply.text, 'The notes say the launch code is 4217.');
      assert.equal(started.length, 1, JSON.stringify(started));
      // One command line from the agent: the shell runs it, in cd.
      assert.deepEqual([started[0].file, started[0].args, started[0].cwd], ['/bin/sh', ['-c', 'cat notes.txt'], ctx.cwd]);
    } finally {
      TerminalHost.prototype.start = start;
    }
  }));
