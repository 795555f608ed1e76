// Sessions that stay open (openAgentSession) on GitHub Copilot CLI
// (`copilot --acp`), opencode (`opencode acp`) and Qwen Code (`qwen --acp`),
// offline against the OpenAI Chat Completions mock
// (tests/cli/openai_chat_server.cjs): the same tests as session_acp.test.cjs
// has for Claude, Gemini and Codex. Each test has its own folder, HOME and
// mock, and checks that nothing of its HOME is left running after close().
// The three agents run side by side (they share nothing but Copilot's
// unpacked package, read only); one agent's tests run one after the other
// (SESSION_CHAT_CONCURRENCY to change it). A CLI that is not installed
// (tests/cli/install_openai_chat_agents.sh) is skipped with the reason.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const chat = require('../cli/openai_chat_agents.cjs');
const { PLAIN_PIECES, WRITE_FILE, WRITE_TEXT } = require('../cli/mocks/common.cjs');
const { turnsAsking } = require('../cli/requests.cjs');
const { inFreshRun, processesWithHome, exited } = require('../cli/processes.cjs');
const { waitFor } = require('../cli/wait.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const CONCURRENCY = Number(process.env.SESSION_CHAT_CONCURRENCY || 1);
const BASE = path.join(chat.ROOT, 'target', 'acp-chat-sessions');
const NAMES = { qwen: 'Qwen Code', copilot: 'GitHub Copilot CLI', opencode: 'opencode' };

/**
 * A folder with notes.txt, a mock playing `scenario`, a fresh HOME; then
 * nothing left running. A session the body opened is closed even when an
 * assertion failed (else its agent would keep the test process alive).
 */
function within(cli, scenario, body) {
  return inFreshRun(() => chat.freshRun(cli, scenario, BASE), chat.endFreshRun, async (ctx) => {
    ctx.sessions = [];
    try {
      await body(ctx);
    } finally {
      await Promise.allSettled(ctx.sessions.map((s) => s.close()));
    }
  });
}

async function open(ctx, options = {}) {
  const session = await pkg.openAgentSession(chat.AGENTS[ctx.cli].agentType, {
    cd: ctx.cwd,
    command: chat.executable(ctx.cli),
    env: ctx.env,
    timeout: 60,
    maxDuration: 150,
    maxRetries: 0,
    ...options,
  });
  ctx.sessions.push(session);
  return session;
}

const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};
const messagesText = (request) => strings(request.body?.messages).join('\n');
/** The model calls of the turn asking `text` (its last user message holds it), in order: never a side call (a title, Qwen's memory extraction or its suggestion of the next prompt, which holds the whole history: the mock logs each call's kind). */
const callsWith = (ctx, text) => turnsAsking(chat.readRequests(ctx.mock.log), text);
/** The assistant messages of a model call, as text. */
const assistantText = (request) => (request.body?.messages ?? []).filter((m) => m.role === 'assistant').map((m) => strings(m.content).join('')).join('\n');

function succeeded(turn) {
  assert.equal(turn.success, true, JSON.stringify(turn.error));
}


/** What each release advertised (docs/acp.md): load and resume, all three. */
const ADVERTISES_REOPEN = { copilot: true, opencode: true, qwen: true };
/** Whether the agent can reopen a session after a restart (load or resume advertised). */
const reopens = (capabilities) => capabilities?.loadSession === true || (capabilities?.sessionCapabilities?.resume ?? null) !== null;

describe('sessions over ACP: Copilot, opencode, Qwen Code', { concurrency: 3 }, () => {
  for (const cli of ['copilot', 'opencode', 'qwen']) {
    const skip = chat.available(cli) ? false : `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)`;
    describe(`sessions over ACP: ${cli}`, { concurrency: CONCURRENCY, skip }, () => {
      test('three turns in one process and one session; each model request holds the earlier turns', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'plain', async (ctx) => {
          const session = await open(ctx);
          assert.ok(session.sessionId, 'the session is open before the first prompt');
          const pids = processesWithHome(ctx.home);
          assert.ok(pids.length > 0, 'the agent runs');
          const prompts = ['First question: alpha-7731?', 'Second question: beta-2294?', 'Third question: gamma-5518?'];
          for (const [n, text] of prompts.entries()) {
            const turn = await session.prompt(text);
            succeeded(turn);
            assert.equal(turn.reply.text, PLAIN_TEXT);
            assert.equal(turn.sessionId, session.sessionId);
            assert.equal(turn.stopReason, 'end_turn');
            // The model call of this turn (the first to hold its prompt) holds the earlier prompts and replies.
            const call = callsWith(ctx, text)[0];
            assert.ok(call, `turn ${n + 1} reached the model`);
            for (const earlier of prompts.slice(0, n)) assert.ok(messagesText(call).includes(earlier), `turn ${n + 1}'s request holds "${earlier}"`);
            assert.equal(assistantText(call).split(PLAIN_TEXT).length - 1, n, `turn ${n + 1}'s request holds the ${n} earlier replies`);
          }
          assert.ok(processesWithHome(ctx.home).some((p) => pids.includes(p)), 'the same process answered');
          // Each advertises its slash commands (Qwen and opencode once a turn runs).
          assert.ok(session.commands.length > 0, 'the commands reached the session');
          await session.close();
        }));

      test('two prompts sent at once are answered in order', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'plain', async (ctx) => {
          const session = await open(ctx);
          const [a, b] = await Promise.all([session.prompt('One: delta-1101?'), session.prompt('Two: epsilon-2202?')]);
          succeeded(a);
          succeeded(b);
          const first = callsWith(ctx, 'delta-1101')[0];
          const second = callsWith(ctx, 'epsilon-2202')[0];
          assert.ok(first && second && second.n > first.n, 'the second prompt reached the model after the first');
          assert.ok(messagesText(second).includes('delta-1101') && assistantText(second).includes(PLAIN_TEXT), 'the second turn holds the first');
          await session.close();
        }));

      test('a cancelled turn, then a good one', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'stallOnce', async (ctx) => {
          const session = await open(ctx);
          const stalled = session.prompt('This one stalls (mark 3391).');
          await waitFor(() => callsWith(ctx, 'mark 3391').length > 0, 60_000, `${cli} to send the prompt to the model`);
          const cancelledAt = Date.now();
          await session.cancel();
          const cancelled = await stalled;
          assert.equal(cancelled.success, false);
          assert.equal(cancelled.error.kind, 'aborted', JSON.stringify(cancelled.error));
          assert.ok(Date.now() - cancelledAt < 10_000, `cancelled in ${Date.now() - cancelledAt} ms`);
          const good = await session.prompt('And now?');
          succeeded(good);
          assert.equal(good.reply.text, PLAIN_TEXT);
          assert.equal(good.sessionId, session.sessionId);
          await session.close();
        }));

      test('modes are listed and set; setModel works or says why not', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'plain', async (ctx) => {
          const session = await open(ctx);
          assert.ok(Array.isArray(session.modes));
          // Qwen opens in `auto` (it approves by itself); the engine sets the mode that asks.
          if (cli === 'qwen') assert.equal(session.mode, 'default');
          if (session.modes.length > 1) {
            const other = session.modes.find((m) => m.id !== session.mode && !/yolo|auto|allow|bypass/i.test(m.id)) ?? session.modes.find((m) => m.id !== session.mode);
            await session.setMode(other.id);
            assert.equal(session.mode, other.id);
          }
          // opencode offers its modes only as a config option (category `mode`): set there.
          const modeOption = session.configOptions.find((o) => o.category === 'mode');
          if (session.modes.length === 0 && modeOption) {
            const value = modeOption.options.map((o) => o.value).find((v) => v !== modeOption.currentValue && !/yolo|auto|allow|bypass/i.test(v));
            await session.setConfigOption(modeOption.id, value);
            assert.equal(session.configOptions.find((o) => o.id === modeOption.id).currentValue, value);
          }
          await assert.rejects(session.setMode('no-such-mode-42'), (err) => err.code === 'INVALID_INPUT' && /no-such-mode-42/.test(err.message));
          const modelOption = session.configOptions.find((o) => o.category === 'model');
          // The model the session runs on: opencode also lists its cloud models, which cannot answer offline.
          const model = modelOption ? (modelOption.options ?? []).map((o) => o.value).find((v) => v.includes(chat.MODEL)) : session.models[0]?.modelId;
          if (model) {
            await session.setModel(model);
            if (modelOption) assert.equal(session.configOptions.find((o) => o.category === 'model').currentValue, model);
          }
          else await assert.rejects(session.setModel('x'), (err) => err.code === 'INVALID_INPUT' && err.message.includes(NAMES[cli]));
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
          assert.equal(asked[0].toolCall?.kind, 'edit', JSON.stringify(asked[0]));
          assert.equal(fs.readFileSync(path.join(ctx.cwd, WRITE_FILE), 'utf8').trim(), WRITE_TEXT.trim(), JSON.stringify(turn.error));
          succeeded(turn);
          await session.close();
        }));

      test('the agent killed between turns: the next turn goes on in the same session, or is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
        within(cli, 'plain', async (ctx) => {
          const session = await open(ctx);
          succeeded(await session.prompt('Remember: zeta-4410.'));
          const killed = processesWithHome(ctx.home);
          assert.ok(killed.length > 0, 'the agent runs between turns');
          for (const pid of killed) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // gone already
            }
          }
          // Gone, its pipes closed: a prompt written from now on never
          // reaches it, and goes to the agent started anew whether the host
          // has heard of the exit before it or only after (docs/sessions.md).
          await waitFor(() => killed.every(exited), 30_000, 'the killed agent to exit');
          const next = await session.prompt('What did I ask you to remember (mark 8812)?');
          assert.equal(reopens(session.capabilities), ADVERTISES_REOPEN[cli], JSON.stringify(session.capabilities));
          if (reopens(session.capabilities)) {
            succeeded(next);
            assert.equal(next.sessionId, session.sessionId);
            const call = callsWith(ctx, 'mark 8812')[0];
            assert.ok(call && messagesText(call).includes('zeta-4410'), 'the reopened session holds the first turn');
          } else {
            assert.equal(next.success, false);
            assert.equal(next.error.kind, 'session_not_found', JSON.stringify(next.error));
          }
          await session.close();
        }));
    });
  }
});
