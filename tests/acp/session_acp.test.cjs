// Sessions that stay open (openAgentSession) on the real agents over ACP,
// offline against the mock APIs on 127.0.0.1: Claude Code (its adapter),
// Codex (its adapter) and Gemini CLI. Each test has its own folder, HOME and
// mock, and checks that nothing of its HOME is left running after close().
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const { PLAIN_PIECES, WRITE_FILE, WRITE_TEXT } = require('../cli/mocks/common.cjs');
const { processesWithHome, exited } = require('../cli/processes.cjs');

const { TEST_TIMEOUT_MS, PLAIN_TEXT, within, open, mainCalls, turnsAsking, bodyText, succeeded } = require('./live_sessions.cjs');
const { waitFor } = require('../cli/wait.cjs');

/** Whether a session file (`.jsonl`) the agent keeps under `home` holds `text`. */
function savedIn(home, text) {
  const walk = (dir, depth) => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    return entries.some((e) => {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) return depth > 0 && walk(full, depth - 1);
      if (!e.name.endsWith('.jsonl')) return false;
      try {
        return fs.readFileSync(full, 'utf8').includes(text);
      } catch {
        return false;
      }
    });
  };
  return walk(home, 6);
}

for (const cli of ['claude', 'gemini', 'codex']) {
  describe(`sessions over ACP: ${cli}`, { concurrency: 3 }, () => {
    test('three turns in one process and one session; each model request holds the earlier turns', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const session = await open(ctx);
        assert.ok(session.sessionId, 'the session is open before the first prompt');
        const pids = processesWithHome(ctx.home);
        const prompts = ['First question: alpha-7731?', 'Second question: beta-2294?', 'Third question: gamma-5518?'];
        for (const text of prompts) {
          const turn = await session.prompt(text);
          succeeded(turn);
          assert.equal(turn.reply.text, PLAIN_TEXT);
          assert.equal(turn.sessionId, session.sessionId);
          assert.equal(turn.stopReason, 'end_turn');
        }
        assert.deepEqual(processesWithHome(ctx.home).filter((p) => pids.includes(p)).length > 0, true, 'the same process answered');
        // The third turn's own request: the one turn call asking the third
        // prompt (not a side call: Claude's adapter asks for a suggestion of
        // the next prompt with the whole history, Codex's for a title).
        const asking = turnsAsking(ctx, prompts[2]);
        assert.equal(asking.length, 1, 'the third prompt reached the model once');
        const [last] = asking;
        for (const text of prompts) assert.ok(bodyText(last).includes(text), `the third request holds "${text}"`);
        assert.ok(bodyText(last).split(PLAIN_PIECES[1].trim()).length - 1 >= 2, 'the third request holds the earlier replies');
        await session.close();
      }));

    test('two prompts sent at once are answered in order', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const session = await open(ctx);
        const [a, b] = await Promise.all([session.prompt('One: delta-1101?'), session.prompt('Two: epsilon-2202?')]);
        succeeded(a);
        succeeded(b);
        const [first] = turnsAsking(ctx, 'delta-1101');
        const [second] = turnsAsking(ctx, 'epsilon-2202');
        assert.ok(first && second && second.n > first.n, 'the second prompt reached the model after the first');
        await session.close();
      }));

    test('a cancelled turn, then a good one', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stallOnce', async (ctx) => {
        const session = await open(ctx);
        const stalled = session.prompt('This one stalls.');
        // Cancelled once its model call (the one that stalls) is made.
        await waitFor(() => mainCalls(ctx).length > 0, 60_000, 'the stalled turn\'s model call');
        await session.cancel();
        const cancelled = await stalled;
        assert.equal(cancelled.success, false);
        assert.equal(cancelled.error.kind, 'aborted', JSON.stringify(cancelled.error));
        const good = await session.prompt('And now?');
        succeeded(good);
        assert.equal(good.reply.text, PLAIN_TEXT, JSON.stringify(good));
        assert.equal(good.reply.text, PLAIN_TEXT);
        assert.equal(good.sessionId, session.sessionId);
        await session.close();
      }));

    test('modes are listed and set; setModel works or says why not', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const session = await open(ctx);
        assert.ok(Array.isArray(session.modes));
        if (session.modes.length > 1) {
          // Gemini refuses its auto-approving modes in a folder it does not trust.
          const other = session.modes.find((m) => m.id !== session.mode && !/yolo|auto/i.test(m.id)) ?? session.modes.find((m) => m.id !== session.mode);
          await session.setMode(other.id);
          assert.equal(session.mode, other.id);
        }
        await assert.rejects(session.setMode('no-such-mode-42'), (err) => err.code === 'INVALID_INPUT' && /no-such-mode-42/.test(err.message));
        // A model the agent offers: its model option's values, else its model list.
        const option = session.configOptions.find((o) => o.category === 'model');
        const values = (option?.options ?? []).flatMap((v) => (Array.isArray(v.options) ? v.options : [v]));
        const model = values.find((v) => v.value !== option.currentValue)?.value ?? session.models[0]?.modelId;
        if (model) {
          await session.setModel(model);
          if (!option) assert.equal(session.model, model);
        } else {
          await assert.rejects(session.setModel('x'), (err) => err.code === 'INVALID_INPUT' && /no way to choose the model/.test(err.message));
        }
        const turn = await session.prompt('Still there?');
        succeeded(turn);
        await session.close();
      }));

    test('a permission answered by optionId', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'write', async (ctx) => {
        const asked = [];
        const session = await open(ctx, {
          onPermission: (request) => {
            asked.push(request);
            const allow = request.options.find((o) => o.kind === 'allow_once') ?? request.options.find((o) => o.kind.startsWith('allow'));
            return allow.optionId;
          },
        });
        const turn = await session.prompt('Write the file.');
        assert.ok(asked.length > 0, 'the agent asked');
        assert.equal(fs.readFileSync(path.join(ctx.cwd, WRITE_FILE), 'utf8').trim(), WRITE_TEXT.trim(), JSON.stringify(turn.error));
        await session.close();
      }));

    test('the agent killed between turns: the next turn goes on in the same session, or is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const session = await open(ctx);
        succeeded(await session.prompt('Remember: zeta-4410.'));
        const agent = processesWithHome(ctx.home);
        for (const pid of agent) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone already
          }
        }
        // Gone, its pipes closed: a prompt written from now on never reaches it.
        await waitFor(() => agent.every(exited), 30_000, 'the killed agent to exit');
        // Whether the host has seen the exit before this prompt is written or
        // only after (a crash noticed late sends the prompt again, once, to
        // the agent started anew: docs/sessions.md), the turn goes on.
        const next = await session.prompt('What did I ask you to remember?');
        if (cli === 'gemini') {
          assert.equal(next.success, false);
          assert.equal(next.error.kind, 'session_not_found', JSON.stringify(next.error));
        } else {
          succeeded(next);
          assert.equal(next.sessionId, session.sessionId);
          const [last] = turnsAsking(ctx, 'What did I ask you to remember?');
          assert.ok(last && bodyText(last).includes('zeta-4410'), 'the resumed session holds the first turn');
        }
        await session.close();
      }));

    if (cli !== 'gemini') {
      test('the agent killed in the middle of a turn: that turn ends process_error, its prompt reached the model once, the next turn resumes', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'stallOnce', async (ctx) => {
          const session = await open(ctx);
          const pending = session.prompt('Remember: kappa-7781.');
          await waitFor(() => mainCalls(ctx).length > 0, 60_000, 'the model call');
          // Killed once the agent has saved the turn's prompt in its own
          // session files (killed before, it has no session to resume: an
          // agent's matter, not this test's).
          await waitFor(() => savedIn(ctx.home, 'kappa-7781'), 30_000, 'the agent to save the prompt in its session files', 100);
          for (const pid of processesWithHome(ctx.home)) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // gone already
            }
          }
          const turn = await pending;
          assert.equal(turn.success, false);
          assert.equal(turn.error.kind, 'process_error', JSON.stringify(turn.error));
          assert.match(turn.error.message, /SIGKILL/);
          const next = await session.prompt('What did I ask you to remember?');
          succeeded(next);
          assert.equal(next.sessionId, session.sessionId);
          // Never sent again by itself: no request holds the prompt twice.
          for (const call of mainCalls(ctx)) assert.ok(bodyText(call).split('kappa-7781').length <= 2, bodyText(call));
          assert.equal(turnsAsking(ctx, 'What did I ask you to remember?').length, 1, 'the next turn reached the model');
          await session.close();
        }));
    }
  });
}
