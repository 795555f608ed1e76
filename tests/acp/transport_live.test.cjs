// An ACP agent served elsewhere, live: the maintained Claude adapter
// (@agentclientprotocol/claude-agent-acp, real Claude Code) on its stdio,
// offline against the Anthropic mock on 127.0.0.1, served by the ACP SDK's
// own server transport (./sdk_acp_server.mjs) and by this package's
// serveAgent; joined with openAgentSession's `transport`. Turns over
// Streamable HTTP and WebSocket; a server killed mid-turn is a crash
// (process_error, transport_lost), and once it is started again the next
// prompt reconnects and the session goes on (its request holds the first
// turn). Every server is stopped by the test, and nothing with the test's
// HOME is left running.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const pkg = require('agent-context');
const { TEST_TIMEOUT_MS, PLAIN_TEXT, ACP_MODELS, ADAPTERS, within, mainCalls, bodyText, succeeded } = require('./live_sessions.cjs');
const { startSdkServer } = require('./served.cjs');

/** What the served Claude adapter runs with: the test's HOME, mock and model. */
const serverEnv = (ctx) => ({ ...ctx.env, ANTHROPIC_MODEL: ACP_MODELS.claude, ENABLE_TOOL_SEARCH: 'false' });
const CLAUDE = [process.execPath, ADAPTERS.claude];

/** `body(ctx, start)` with the SDK's server in front of Claude; every server it started killed after. */
function served(scenario, body) {
  return within('claude', scenario, async (ctx) => {
    const servers = [];
    try {
      await body(ctx, async (port = 0) => {
        const server = await startSdkServer(CLAUDE, serverEnv(ctx), port);
        servers.push(server);
        return server;
      });
    } finally {
      for (const s of ctx.sessions.splice(0)) await s.close().catch(() => {});
      for (const s of servers) await s.kill();
    }
  });
}

async function open(ctx, transport, more = {}) {
  const session = await pkg.openAgentSession('claude-code', { cd: ctx.cwd, transport, timeout: 30, maxDuration: 90, maxRetries: 0, ...more });
  ctx.sessions.push(session);
  return session;
}

for (const scheme of ['http', 'ws']) {
  test(`Claude Code served by the ACP SDK's server over ${scheme === 'ws' ? 'WebSocket' : 'Streamable HTTP'}: two turns in one session`, { timeout: TEST_TIMEOUT_MS }, () =>
    served('plain', async (ctx, start) => {
      const server = await start();
      const session = await open(ctx, { url: server.url(scheme) }, { systemPrompt: 'Answer briefly. (mark 3317)' });
      assert.ok(session.sessionId);
      const prompts = ['First question: alpha-7731?', 'Second question: beta-2294?'];
      for (const text of prompts) {
        const turn = await session.prompt(text);
        succeeded(turn);
        assert.equal(turn.reply.text, PLAIN_TEXT);
        assert.equal(turn.sessionId, session.sessionId);
        assert.equal(turn.stopReason, 'end_turn');
      }
      const last = mainCalls(ctx).filter((c) => bodyText(c).includes('beta-2294')).at(-1);
      assert.ok(last, 'the second prompt reached the model');
      assert.ok(bodyText(last).includes('alpha-7731'), 'the second request holds the first turn');
      assert.ok(bodyText(last).includes('mark 3317'), "the system prompt reached Claude's (in _meta)");
      await session.close();
    }));
}

test('the server killed mid-turn: that turn is process_error (transport_lost); started again, the next prompt reconnects to the same session', { timeout: TEST_TIMEOUT_MS }, () =>
  served('stallSecond', async (ctx, start) => {
    const server = await start();
    const session = await open(ctx, { url: server.url('ws') });
    succeeded(await session.prompt('Remember: zeta-4410.'));
    // The mock starts its answer, then goes silent: the turn is under way.
    const events = [];
    const stalled = session.prompt('This one stalls.', { onEvent: (event) => events.push(JSON.stringify(event)) });
    for (let i = 0; i < 600 && !events.some((e) => e.includes('Let me think')); i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.ok(events.some((e) => e.includes('Let me think')), 'the second turn started answering');
    await server.kill();
    const cut = await stalled;
    assert.equal(cut.success, false, JSON.stringify(cut));
    assert.equal(cut.error.kind, 'process_error', JSON.stringify(cut.error));
    assert.match(cut.error.message, new RegExp(`transport_lost: ws://127\\.0\\.0\\.1:${server.port}/: `));
    await start(server.port);
    const next = await session.prompt('What did I ask you to remember?');
    succeeded(next);
    assert.equal(next.sessionId, session.sessionId, 'the same session, reopened');
    assert.equal(next.reply.text, PLAIN_TEXT);
    const last = mainCalls(ctx).filter((c) => bodyText(c).includes('What did I ask you to remember?')).at(-1);
    assert.ok(bodyText(last).includes('zeta-4410'), 'its request holds the first turn');
    await session.close();
  }));

test("Claude Code served by this package's serveAgent: a turn over each transport with the token", { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'plain', async (ctx) => {
    const server = await pkg.serveAgent({ agent: { command: CLAUDE[0], args: CLAUDE.slice(1), env: serverEnv(ctx) }, cd: ctx.cwd, listen: { port: 0 } });
    try {
      for (const scheme of ['http', 'ws']) {
        const session = await open(ctx, { url: server.url.replace(/^http/, scheme), headers: { Authorization: `Bearer ${server.token}` } });
        const turn = await session.prompt(`Over ${scheme}: omega-5120?`);
        succeeded(turn);
        assert.equal(turn.reply.text, PLAIN_TEXT);
        await session.close();
      }
    } finally {
      for (const s of ctx.sessions.splice(0)) await s.close().catch(() => {});
      await server.close();
    }
  }));
