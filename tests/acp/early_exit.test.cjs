// An agent that exits before it answers `initialize` says why: its stderr
// in the error's last lines and message (a stub that prints and exits: this
// tests the process layer, not an agent). And Claude Code as root: over the
// ACP adapter it starts (the adapter turns bypassPermissions off for root);
// over its CLI, `yolo` as root is refused by Claude Code unless IS_SANDBOX=1
// is in its environment, and the message names that variable — given it,
// the run succeeds (real Claude Code against the Anthropic mock).
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { ADAPTERS } = require('./adapters.cjs');

const TEST_TIMEOUT_MS = 120_000;
const BASE = path.join(harness.ROOT, 'target', 'early-exit');
const ROOT = process.getuid?.() === 0 ? false : 'only a root process shows what Claude Code does as root';

/** A folder with a HOME, a work folder and (for `scenario`) the Anthropic mock. */
async function setUp(scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, 'run-'));
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  for (const d of [home, work]) fs.mkdirSync(d, { recursive: true });
  const mock = scenario ? await harness.startMock('anthropic', scenario, dir) : null;
  return { dir, home, cwd: fs.realpathSync(work), mock, env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' } };
}

function cleanUp(ctx) {
  ctx.mock?.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** An executable that prints two lines on stderr and exits 1 before reading anything. */
function stub(ctx) {
  const file = path.join(ctx.dir, 'exits-at-once.sh');
  fs.writeFileSync(file, '#!/bin/sh\necho "starting the agent" >&2\necho "Error: cannot start here (mark 6130)" >&2\nexit 1\n', { mode: 0o755 });
  return file;
}

describe('an agent that exits before answering initialize', () => {
  test('runAgent over ACP: process_error with its stderr in lastLines and the message', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(() => setUp(null), cleanUp, async (ctx) => {
      const result = await pkg.runAgent('claude-code', { prompt: 'Hello' }, { protocol: 'acp', cd: ctx.cwd, command: stub(ctx), env: ctx.env, maxRetries: 0 });
      assert.equal(result.success, false);
      assert.equal(result.error.kind, 'process_error', JSON.stringify(result.error));
      assert.equal(result.error.message, 'Claude Code exited with code 1 before it answered initialize: Error: cannot start here (mark 6130)');
      assert.deepEqual(result.error.lastLines, ['starting the agent', 'Error: cannot start here (mark 6130)']);
    }));

  test('openAgentSession: the open fails saying what it printed', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(() => setUp(null), cleanUp, async (ctx) => {
      await assert.rejects(pkg.openAgentSession('claude-code', { cd: ctx.cwd, command: stub(ctx), env: ctx.env }), (err) => {
        assert.match(err.message, /^Claude Code exited with code 1 before it answered initialize: Error: cannot start here \(mark 6130\)$/);
        assert.equal(err.kind, 'process_error');
        return true;
      });
    }));
});

describe('Claude Code as root', { skip: ROOT }, () => {
  const endpoint = (ctx) => ({ baseUrl: ctx.mock.baseUrl, apiKey: 'sk-root-test', model: 'claude-mock-1' });

  test('over ACP with yolo: the adapter starts and answers', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(() => setUp('plain'), cleanUp, async (ctx) => {
      const result = await pkg.runAgent('claude-code', { prompt: 'Which UI framework?' }, { protocol: 'acp', cd: ctx.cwd, command: ADAPTERS.claude, env: ctx.env, endpoint: endpoint(ctx), yolo: true, maxRetries: 0 });
      assert.equal(result.success, true, JSON.stringify(result.error));
    }));

  test('over its CLI with yolo: refused, naming IS_SANDBOX=1; with it, the run succeeds', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(() => setUp('plain'), cleanUp, async (ctx) => {
      const options = { protocol: 'cli', cd: ctx.cwd, command: harness.executable('claude'), endpoint: endpoint(ctx), yolo: true, maxRetries: 0 };
      const refused = await pkg.runAgent('claude-code', { prompt: 'Which UI framework?' }, { ...options, env: ctx.env });
      assert.equal(refused.success, false);
      assert.match(refused.error.message, /cannot be used with root\/sudo privileges/);
      assert.match(refused.error.message, /IS_SANDBOX=1/);
      assert.ok(!ctx.mock.requests().some((r) => JSON.stringify(r.body ?? '').includes('Which UI framework')), 'the prompt never reached the model');
      const sandboxed = await pkg.runAgent('claude-code', { prompt: 'Which UI framework?' }, { ...options, env: { ...ctx.env, IS_SANDBOX: '1' } });
      assert.equal(sandboxed.success, true, JSON.stringify(sandboxed.error));
    }));
});
