// A container's IS_SANDBOX never fails a run: as root, Claude Code starts in
// a mode that skips permissions only with IS_SANDBOX=1, while its ACP
// adapter takes any value of it as "a sandbox" and asks for that mode, so
// `IS_SANDBOX=yes` in the caller's environment once failed every session
// over ACP at its start ("--dangerously-skip-permissions cannot be used
// with root/sudo privileges"). The run now gives Claude Code the value
// both read as the caller's value means (docs/agents.md). Real Claude Code,
// its adapter and its CLI, offline against the mock on 127.0.0.1, as root
// (CI runs so).
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { TEST_TIMEOUT_MS, PLAIN_TEXT, within, open, succeeded } = require('./live_sessions.cjs');

const root = typeof process.getuid === 'function' && process.getuid() === 0;

describe('IS_SANDBOX in the caller environment, as root', { concurrency: 3, skip: !root && 'the difference shows only as root' }, () => {
  test('a Claude Code session over ACP opens and answers with IS_SANDBOX=yes', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const session = await open(ctx, { env: { ...ctx.env, IS_SANDBOX: 'yes' } });
      const turn = await session.prompt('Which framework?');
      succeeded(turn);
      assert.equal(turn.reply.text, PLAIN_TEXT);
    }));

  // What `yes` means is kept: a sandbox, where Claude Code may skip its
  // permission checks when the run asks it to (yolo).
  test('a yolo run over the CLI with IS_SANDBOX=yes runs; with IS_SANDBOX=0 Claude Code refuses, and the error names IS_SANDBOX=1', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const run = (value) =>
        pkg.runAgent(
          'claude-code',
          { prompt: 'Which framework?' },
          { protocol: 'cli', cd: ctx.cwd, command: harness.executable('claude'), env: { ...ctx.env, IS_SANDBOX: value }, yolo: true, maxRetries: 0, timeout: 30 },
        );
      const yes = await run('yes');
      assert.equal(yes.success, true, JSON.stringify(yes.error));
      assert.equal(yes.reply.text, PLAIN_TEXT);
      const no = await run('0');
      assert.equal(no.success, false);
      assert.match(no.error.message, /cannot be used with root/, JSON.stringify(no.error));
      assert.match(no.error.message, /IS_SANDBOX=1/);
    }));
});
