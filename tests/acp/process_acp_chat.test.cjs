// One agent process holding several sessions (openAgent) on opencode
// (`opencode acp`) and Qwen Code (`qwen --acp`), offline against the OpenAI
// Chat Completions mock (tests/cli/openai_chat_server.cjs): two sessions in
// one process, a turn in each at the same time, each model request holding
// only its own session's earlier turns; one session closed while the other
// goes on; listSessions where advertised; nothing left running after close.
// A CLI that is not installed (tests/cli/install_openai_chat_agents.sh) is
// skipped with the reason.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const pkg = require('agent-context');
const chat = require('../cli/openai_chat_agents.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { turnsAsking } = require('../cli/requests.cjs');
const { inFreshRun, processesWithHome, startedProcesses, describeProcess } = require('../cli/processes.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const BASE = path.join(chat.ROOT, 'target', 'acp-chat-process');

const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};
const messagesText = (request) => strings(request.body?.messages).join('\n');
/** The model calls of the turn asking `text` (its last user message holds it), in order: never a side call (a title, Qwen's memory extraction or its suggestion of the next prompt, which holds the whole history: the mock logs each call's kind). */
const callsWith = (ctx, text) => turnsAsking(chat.readRequests(ctx.mock.log), text);

function succeeded(turn) {
  assert.equal(turn.success, true, JSON.stringify(turn.error));
  assert.equal(turn.reply.text, PLAIN_TEXT);
}

/** The agent's process closed even when an assertion failed (else it would keep the test alive). */
function within(cli, body) {
  return inFreshRun(() => chat.freshRun(cli, 'plain', BASE), chat.endFreshRun, async (ctx) => {
    let agent;
    try {
      agent = await pkg.openAgent(chat.AGENTS[cli].agentType, {
        cd: ctx.cwd,
        command: chat.executable(cli),
        env: ctx.env,
        timeout: 60,
        maxDuration: 150,
        maxRetries: 0,
      });
      await body(ctx, agent);
    } finally {
      await agent?.close();
    }
  });
}

describe('several sessions in one agent process: opencode, Qwen Code', { concurrency: 2 }, () => {
  for (const cli of ['opencode', 'qwen']) {
    const skip = chat.available(cli) ? false : `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)`;
    test(`${cli}: two sessions in one process, turns at once, each holding only its own history`, { timeout: TEST_TIMEOUT_MS, skip }, () =>
      within(cli, async (ctx, agent) => {
        assert.ok(agent.capabilities && typeof agent.capabilities === 'object');
        const a = await agent.newSession();
        const started = startedProcesses(ctx.home);
        assert.ok(started.length > 0, 'the agent runs');
        const b = await agent.newSession();
        assert.ok(a.sessionId && b.sessionId && a.sessionId !== b.sessionId, `two sessions: ${a.sessionId}, ${b.sessionId}`);
        // Both turns run at the same time in the one process.
        const [a1, b1] = await Promise.all([a.prompt('Session A, first: alpha-6612?'), b.prompt('Session B, first: beta-7723?')]);
        succeeded(a1);
        succeeded(b1);
        assert.equal(a1.sessionId, a.sessionId);
        assert.equal(b1.sessionId, b.sessionId);
        const [a2, b2] = await Promise.all([a.prompt('Session A, second: gamma-8834?'), b.prompt('Session B, second: delta-9945?')]);
        succeeded(a2);
        succeeded(b2);
        // The agent may start helpers of its own (children of it); the host started no second agent.
        const now = startedProcesses(ctx.home);
        assert.ok(now.every((pid) => started.includes(pid)), `no process started for the second session: ${started} then ${now.map(describeProcess)}`);
        // Each session's model request holds its own earlier turn, not the other's.
        const callA = callsWith(ctx, 'gamma-8834')[0];
        const callB = callsWith(ctx, 'delta-9945')[0];
        assert.ok(callA && callB, 'both second turns reached the model');
        assert.ok(messagesText(callA).includes('alpha-6612'), "A's request holds A's first turn");
        assert.ok(!messagesText(callA).includes('beta-7723'), "A's request holds nothing of B");
        assert.ok(messagesText(callB).includes('beta-7723'), "B's request holds B's first turn");
        assert.ok(!messagesText(callB).includes('alpha-6612'), "B's request holds nothing of A");
        // listSessions where advertised, else INVALID_INPUT naming the agent.
        if (agent.capabilities.sessionCapabilities?.list) {
          const listed = await agent.listSessions({ cwd: ctx.cwd });
          const ids = listed.sessions.map((s) => s.sessionId);
          for (const id of [a.sessionId, b.sessionId]) assert.ok(ids.includes(id), `${id} listed among ${ids}`);
        } else {
          await assert.rejects(agent.listSessions(), (err) => err.code === 'INVALID_INPUT' && /does not list its sessions/.test(err.message));
        }
        // Closing A leaves B and the process running.
        await a.close();
        await assert.rejects(a.prompt('closed?'), (err) => err.code === 'INVALID_INPUT');
        const b3 = await b.prompt('Session B, third: epsilon-1056?');
        succeeded(b3);
        const callB3 = callsWith(ctx, 'epsilon-1056')[0];
        assert.ok(callB3 && messagesText(callB3).includes('delta-9945') && !messagesText(callB3).includes('gamma-8834'));
        assert.ok(processesWithHome(ctx.home).some((pid) => started.includes(pid)), 'the same process answered');
        await agent.close();
      }));

    test(`${cli}: loadSession reopens a session in another process, verified; an unknown one is session_not_found`, { timeout: TEST_TIMEOUT_MS, skip }, () =>
      within(cli, async (ctx, agent) => {
        const a = await agent.newSession();
        succeeded(await a.prompt('Remember: theta-2047.'));
        const id = a.sessionId;
        await agent.close();
        const again = await pkg.openAgent(chat.AGENTS[cli].agentType, { cd: ctx.cwd, command: chat.executable(cli), env: ctx.env, timeout: 60, maxRetries: 0 });
        try {
          const reopened = await again.loadSession(id);
          assert.equal(reopened.sessionId, id);
          const turn = await reopened.prompt('What did I ask you to remember?');
          succeeded(turn);
          const call = callsWith(ctx, 'What did I ask you to remember?')[0];
          assert.ok(call && messagesText(call).includes('theta-2047'), 'the reopened session holds its history');
          await assert.rejects(again.loadSession('no-such-session-4242'), (err) => err.kind === 'session_not_found');
          // The process goes on after that failure.
          const fresh = await again.newSession();
          succeeded(await fresh.prompt('Fresh: iota-3158?'));
        } finally {
          await again.close();
        }
      }));
  }
});
