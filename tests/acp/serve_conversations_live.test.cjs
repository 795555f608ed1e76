// `agent-context acp` with real agents behind it, driven by the ACP SDK's
// own client over stdio, offline against the mock APIs on 127.0.0.1:
// Claude Code (its ACP adapter) answers a prompt; a new `acp` process loads
// the conversation (its updates replayed) and the next prompt reaches
// Claude with the earlier turn; with `--fallback openai-codex`, a turn
// Claude's API refuses for quota is answered by Codex. Closing stdin ends
// the process and every agent it started.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { TEST_TIMEOUT_MS, PLAIN_TEXT, ACP_MODELS, ADAPTERS, setUp, turnAsking, bodyText } = require('./live_sessions.cjs');
const { startAcp, noneLeft } = require('./served_clients.cjs');

/** `--agent`/`--fallback`'s JSON for the agent of `ctx` (its adapter, model, HOME). */
function agentArg(agentType, ctx) {
  return JSON.stringify({ agent: agentType, options: { command: ADAPTERS[ctx.cli], model: ACP_MODELS[ctx.cli], env: ctx.env, timeout: 30, maxDuration: 90, maxRetries: 0 } });
}

async function withCtxs(specs, body) {
  const ctxs = [];
  try {
    for (const [cli, scenario] of specs) ctxs.push(await setUp(cli, scenario));
    await body(...ctxs);
  } finally {
    for (const c of ctxs) {
      c.mock.stop();
      fs.rmSync(c.dir, { recursive: true, force: true });
    }
  }
}

const prompt = (text) => [{ type: 'text', text }];
const replyOf = (client, id) => client.text(id);

test('agent-context acp with Claude Code: a reply; a new process loads the conversation and Claude sees the earlier turn; closing stdin leaves no process', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtxs([['claude', 'plain']], async (ctx) => {
    const store = path.join(ctx.dir, 'conversations');
    const args = ['--agent', agentArg('claude-code', ctx), '--store', store, '--cd', ctx.cwd];
    const env = { ...process.env, HOME: ctx.home };
    const first = startAcp(args, env);
    let sessionId;
    try {
      const a = await first.client();
      ({ sessionId } = await a.agent.request('session/new', { cwd: ctx.cwd, mcpServers: [] }));
      const answer = await a.agent.request('session/prompt', { sessionId, prompt: prompt('Remember the word heron.') });
      assert.equal(answer.stopReason, 'end_turn');
      assert.equal(answer._meta['agent-context'].agentType, 'claude-code');
      assert.equal(replyOf(a, sessionId), PLAIN_TEXT, "Claude's reply, streamed to the client");
      const { sessions } = await a.agent.request('session/list', {});
      assert.deepEqual(sessions.map((s) => s.sessionId), [sessionId]);
    } finally {
      first.child.stdin.end();
    }
    assert.equal((await first.exited).code, 0, first.stderr());
    assert.deepEqual(await noneLeft(ctx.home), [], 'no process left once stdin closed');

    const second = startAcp(args, env);
    try {
      const b = await second.client();
      const loaded = await b.agent.request('session/load', { sessionId, cwd: ctx.cwd, mcpServers: [] });
      assert.equal(loaded._meta['agent-context'].turn, 1);
      assert.deepEqual(
        b.of(sessionId).filter((u) => /message_chunk$/.test(u.update.sessionUpdate)).map((u) => u.update.sessionUpdate).filter((k, i, all) => k !== all[i - 1]),
        ['user_message_chunk', 'agent_message_chunk'],
        'the recorded turn replayed',
      );
      assert.equal(b.text(sessionId, 'user_message_chunk'), 'Remember the word heron.');
      assert.equal(b.text(sessionId), PLAIN_TEXT);
      const next = await b.agent.request('session/prompt', { sessionId, prompt: prompt('What was the word?') });
      assert.equal(next.stopReason, 'end_turn');
      assert.equal(next._meta['agent-context'].turn, 2);
      assert.ok(bodyText(turnAsking(ctx, 'What was the word?')).includes('heron'), 'Claude is asked with the earlier turn');
    } finally {
      second.child.stdin.end();
    }
    assert.equal((await second.exited).code, 0, second.stderr());
    assert.deepEqual(await noneLeft(ctx.home), []);
    const record = fs.readdirSync(store).map((f) => fs.readFileSync(path.join(store, f), 'utf8')).join('');
    assert.ok(record.includes('What was the word?'));
  }));

test('agent-context acp --fallback openai-codex: a turn Claude is over its quota for is answered by Codex', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtxs([['claude', 'quota'], ['codex', 'plain']], async (claude, codex) => {
    const store = path.join(claude.dir, 'conversations');
    const args = ['--agent', agentArg('claude-code', claude), '--fallback', agentArg('openai-codex', codex), '--store', store, '--cd', claude.cwd];
    const acp = startAcp(args, { ...process.env, HOME: claude.home });
    try {
      const a = await acp.client({ caps: { session: { notices: {} } } });
      const { sessionId } = await a.agent.request('session/new', { cwd: claude.cwd, mcpServers: [] });
      const answer = await a.agent.request('session/prompt', { sessionId, prompt: prompt('Summarise the plan.') });
      assert.equal(answer.stopReason, 'end_turn');
      assert.equal(answer._meta['agent-context'].handedOffTo.agentType, 'openai-codex');
      assert.equal(answer._meta['agent-context'].agentType, 'openai-codex');
      turnAsking(codex, 'Summarise the plan.');
      const updates = a.of(sessionId);
      const notices = updates.filter((u) => u.update.sessionUpdate === 'notice').map((u) => u.update.title);
      assert.ok(notices.includes('The conversation went on with openai-codex'), notices.join(' | '));
      const codexText = updates.filter((u) => u.update.sessionUpdate === 'agent_message_chunk' && u._meta['agent-context'].agentType === 'openai-codex');
      assert.ok(codexText.length > 0, "Codex's reply streamed to the client");
      assert.ok(updates.some((u) => u.update.sessionUpdate === 'available_commands_update' && u._meta['agent-context'].agentType === 'openai-codex'), "Codex's commands");
    } finally {
      acp.child.stdin.end();
    }
    assert.equal((await acp.exited).code, 0, acp.stderr());
    assert.deepEqual(await noneLeft(claude.home), []);
    assert.deepEqual(await noneLeft(codex.home), []);
  }));
