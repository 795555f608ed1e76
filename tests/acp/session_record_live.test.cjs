// The session record with real agents over ACP, offline against the mock
// APIs on 127.0.0.1: a Claude Code session of three turns restored in a new
// process (the agent loads it; history() is the whole record, its replay not
// recorded twice); a Gemini CLI session rebuilt from its record; a Claude
// Code conversation handed off to Codex; and Claude Code over its quota
// failing over to Codex. Each test has its own folders, HOMEs and mocks.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { TEST_TIMEOUT_MS, PLAIN_TEXT, ACP_MODELS, ADAPTERS, setUp, turnAsking, bodyText, succeeded } = require('./live_sessions.cjs');

const PKG = path.dirname(require.resolve('agent-context/package.json'));

/** The options of a session of `ctx`'s agent. */
function optionsOf(ctx, more = {}) {
  const command = more.protocol === 'cli' ? harness.executable(ctx.cli) : ADAPTERS[ctx.cli];
  const model = more.protocol === 'cli' ? harness.MODELS[ctx.cli] : ACP_MODELS[ctx.cli];
  return { cd: ctx.cwd, command, model, env: ctx.env, timeout: 30, maxDuration: 90, maxRetries: 0, ...more };
}

/** Runs `script` in a new Node process (the package as an app has it); resolves its stdout. */
function inOtherProcess(script) {
  const child = spawn(process.execPath, ['-e', script], { cwd: PKG, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`exited ${code}: ${out}`));
    });
  });
}

async function withCtx(cli, scenario, body) {
  const ctx = await setUp(cli, scenario);
  const others = [];
  try {
    await body(ctx, async (cli2, scenario2) => {
      const other = await setUp(cli2, scenario2);
      others.push(other);
      return other;
    });
  } finally {
    for (const c of [ctx, ...others]) {
      c.mock.stop();
      fs.rmSync(c.dir, { recursive: true, force: true });
    }
  }
}

for (const protocol of ['acp', 'cli']) {
test(`Claude Code over ${protocol}: three turns, then the session restored in a new process with the whole history`, { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx) => {
    const storeDir = path.join(ctx.dir, 'sessions');
    const prompts = ['Remember the word heron.', 'And the number 31.', 'What were they?'];
    const out = await inOtherProcess(`
      const pkg = require('agent-context');
      (async () => {
        const s = await pkg.openAgentSession('claude-code', { ...${JSON.stringify(optionsOf(ctx, { protocol }))}, store: pkg.openSessionStore(${JSON.stringify(storeDir)}) });
        for (const p of ${JSON.stringify(prompts)}) { const t = await s.prompt(p); if (!t.success) throw new Error(JSON.stringify(t.error)); }
        console.log('id=' + s.sessionId + ' conversation=' + s.conversationId);
        await s.close();
      })().catch((e) => { console.error(e); process.exit(1); });`);
    const [, id, conversationId] = /id=(\S+) conversation=(\S+)/.exec(out);
    const store = pkg.openSessionStore(storeDir);
    const [summary] = await store.list();
    assert.deepEqual([summary.sessionId, summary.turns, summary.status, summary.agentType, summary.protocol], [id, 3, 'closed', 'claude-code', protocol]);
    const read = (await store.read(conversationId)).entries;
    assert.deepEqual(read.filter((e) => e.kind === 'request').map((e) => e.text), prompts);
    assert.equal(read.filter((e) => e.kind === 'text').length, 3, 'the replies are in the record');
    const summaryCursor = (await store.read(conversationId)).cursor;
    const session = await pkg.openAgentSession('claude-code', optionsOf(ctx, { store, sessionId: id, protocol }));
    try {
      assert.equal(session.sessionId, id, 'loaded, not rebuilt');
      const before = session.history().entries.filter((e) => e.seq <= summaryCursor);
      const requests = before.filter((e) => e.kind === 'request').map((e) => e.text);
      assert.deepEqual(requests, prompts, 'the replay of the load is not recorded again');
      assert.equal(before.filter((e) => e.kind === 'text' && e.text.includes(PLAIN_TEXT.trim().slice(0, 20))).length, 3);
      const turn = await session.prompt('One more.');
      succeeded(turn);
      const last = turnAsking(ctx, 'One more.');
      for (const p of prompts) assert.ok(bodyText(last).includes(p), `the model still sees "${p}"`);
      const after = session.history({ after: before.at(-1).seq }).entries.map((e) => e.kind);
      assert.ok(['loaded', 'resumed'].includes(after[0]), after.join());
      assert.equal(session.history().entries.filter((e) => e.kind === 'request').length, 4);
      assert.deepEqual(after.filter((k) => k === 'request' || k === 'turnEnd'), ['request', 'turnEnd']);
    } finally {
      await session.close();
    }
    const text = fs.readFileSync(path.join(storeDir, fs.readdirSync(storeDir).find((n) => n.endsWith('.jsonl'))), 'utf8');
    for (const secret of Object.values(harness.FAKE_KEYS)) assert.ok(!text.includes(secret), 'no key in the record');
  }));
}

test('Gemini CLI: a session rebuilt from its record carries the conversation to the model', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('gemini', 'plain', async (ctx) => {
    const store = pkg.memorySessionStore();
    const first = await pkg.openAgentSession('google-gemini', optionsOf(ctx, { store }));
    const id = first.sessionId;
    succeeded(await first.prompt('The password is swordfish.'));
    await first.close();
    // The agent's own store is gone (a sandbox recycled): it cannot reopen the session.
    fs.rmSync(path.join(ctx.home, '.gemini', 'tmp'), { recursive: true, force: true });
    await assert.rejects(pkg.openAgentSession('google-gemini', optionsOf(ctx, { store, sessionId: id })), (err) => err.kind === 'session_not_found');
    // No record to rebuild from: as without rebuild.
    await assert.rejects(pkg.openAgentSession('google-gemini', optionsOf(ctx, { store, sessionId: 'no-such-session', rebuild: true })), (err) => err.kind === 'session_not_found');
    const rebuilt = await pkg.openAgentSession('google-gemini', optionsOf(ctx, { store, sessionId: id, rebuild: true }));
    try {
      assert.notEqual(rebuilt.sessionId, id);
      assert.equal(rebuilt.conversationId, first.conversationId);
      const turn = await rebuilt.prompt('What is the password?');
      succeeded(turn);
      assert.equal(turn.context.kind, 'full');
      const last = turnAsking(ctx, 'What is the password?');
      assert.ok(bodyText(last).includes('swordfish'), 'the model sees the earlier turn');
    } finally {
      await rebuilt.close();
    }
  }));

test('Claude Code handed off to Codex: one conversation, the old session refuses', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx, another) => {
    const codex = await another('codex', 'plain');
    const session = await pkg.openAgentSession('claude-code', optionsOf(ctx, { store: pkg.memorySessionStore() }));
    try {
      succeeded(await session.prompt('Our project is called Bluefin.'));
      const next = await session.handoff('openai-codex', optionsOf(codex));
      try {
        const claudeCalls = ctx.mock.turns().length;
        const turn = await next.prompt('What is the project called?');
        succeeded(turn);
        assert.equal(turn.context.kind, 'full');
        const body = bodyText(turnAsking(codex, 'What is the project called?'));
        assert.ok(body.includes('Bluefin') && body.includes(PLAIN_TEXT.trim().slice(0, 20)), 'Codex sees the Claude conversation');
        assert.equal(next.conversationId, session.conversationId);
        const parts = next.history().entries.filter((e) => e.kind === 'part').map((p) => [p.agentType, p.reason, p.fromTurn]);
        assert.deepEqual(parts, [['claude-code', 'opened', 1], ['openai-codex', 'handoff', 2]]);
        await assert.rejects(session.prompt('Still there?'), (err) => err.code === 'SESSION_MOVED' && err.details.sessionId === next.sessionId);
        assert.equal(ctx.mock.turns().length, claudeCalls, 'nothing more went to Claude');
      } finally {
        await next.close();
      }
    } finally {
      await session.close();
    }
  }));

test('Claude Code over its quota (429) fails over to Codex: the error is no reply, one conversation, reopened on Codex in a new process', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx, another) => {
    const quota = await another('claude', 'quota');
    const codex = await another('codex', 'plain');
    const storeDir = path.join(ctx.dir, 'sessions');
    const store = pkg.openSessionStore(storeDir);
    // Turn 1 on a Claude that answers; the conversation then goes on with a Claude over its quota.
    const first = await pkg.openAgentSession('claude-code', optionsOf(ctx, { store }));
    const conversationId = first.conversationId;
    succeeded(await first.prompt('The release is called Marlin.'));
    await first.close();
    const events = [];
    const failing = await pkg.openConversation(store, conversationId, {
      agent: 'claude-code',
      ...optionsOf(quota),
      rebuild: true,
      fallback: [{ agent: 'openai-codex', options: optionsOf(codex) }],
    });
    const claudeId = failing.sessionId;
    const question = 'Summarise the plan for the release.';
    let turn;
    try {
      turn = await failing.prompt(question, { onEvent: (e) => events.push(e) });
      succeeded(turn);
      assert.equal(turn.handedOffTo.agentType, 'openai-codex');
      assert.equal(failing.agentType, 'openai-codex');
      assert.equal(failing.conversationId, conversationId);
      const handoffs = events.filter((e) => e.type === 'handoff');
      assert.deepEqual(handoffs.map((e) => [e.reason, e.from.agentType, e.to.agentType]), [['quota_exceeded', 'claude-code', 'openai-codex']]);
      assert.ok(quota.mock.requests().some((r) => r.kind === 'turn'), 'Claude was asked and refused');
      // Codex's request: the question once, the earlier turn, no error text.
      const body = bodyText(turnAsking(codex, question));
      assert.equal(body.split(question).length, 2, body);
      assert.ok(body.includes('Marlin'), 'Codex sees turn 1');
      assert.doesNotMatch(body, /API Error|429|rate limit/i);
      // Neither the reply nor a text event that was not discarded holds the error.
      assert.doesNotMatch(turn.reply.text, /API Error|429|rate limit/i);
      const discarded = new Set(events.filter((e) => e.type === 'discard').map((e) => e.attempt));
      for (const e of events.filter((x) => x.type === 'text' && !discarded.has(x.attempt))) assert.doesNotMatch(e.text, /API Error|429|rate limit/i);
      succeeded(await failing.prompt('And the next step?'));
      // One conversation, its turns numbered on across both agents.
      const { entries } = failing.history();
      assert.deepEqual(entries.filter((e) => e.kind === 'request').map((e) => `${e.turn}:${e.agentType}`), ['1:claude-code', '2:claude-code', '3:openai-codex']);
      assert.ok(!entries.some((e) => e.kind === 'text' && /API Error|429|rate limit/i.test(e.text)), 'no error text in the record');
      assert.deepEqual(entries.filter((e) => e.kind === 'part').map((p) => [p.agentType, p.reason, p.fromTurn]), [['claude-code', 'opened', 1], ['claude-code', 'rebuild', 2], ['openai-codex', 'failover', 2]]);
    } finally {
      await failing.close();
    }
    // A new process opens the conversation: it goes on with Codex, with the whole conversation.
    const out = await inOtherProcess(`
      const pkg = require('agent-context');
      (async () => {
        const store = pkg.openSessionStore(${JSON.stringify(storeDir)});
        const s = await pkg.openConversation(store, ${JSON.stringify(conversationId)}, { agent: 'claude-code', ...${JSON.stringify(optionsOf(quota))}, rebuild: true, fallback: [{ agent: 'openai-codex', options: ${JSON.stringify(optionsOf(codex))} }] });
        const t = await s.prompt('What is the release called?');
        console.log(JSON.stringify({ agentType: s.agentType, success: t.success, error: t.error, kind: t.context.kind, turns: s.history().entries.filter((e) => e.kind === 'request').length }));
        await s.close();
      })().catch((e) => { console.error(e); process.exit(1); });`);
    const reopened = JSON.parse(out.trim().split('\n').pop());
    assert.deepEqual([reopened.agentType, reopened.success, reopened.turns], ['openai-codex', true, 4], JSON.stringify(reopened));
    const last = bodyText(turnAsking(codex, 'What is the release called?'));
    for (const said of ['The release is called Marlin.', question, 'And the next step?']) assert.ok(last.includes(said), `Codex sees "${said}"`);
    // The Claude session id it had is no longer where the conversation goes on.
    await assert.rejects(
      pkg.openAgentSession('claude-code', optionsOf(ctx, { store, sessionId: claudeId })),
      (err) => err.code === 'SESSION_MOVED' && err.details.conversationId === conversationId && err.details.agentType === 'openai-codex',
    );
  }));

test('Claude Code: fork after two turns (the adapter’s own session/fork) and fork at turn 1 (rebuilt from the record)', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx) => {
    const store = pkg.memorySessionStore();
    const session = await pkg.openAgentSession('claude-code', optionsOf(ctx, { store }));
    try {
      succeeded(await session.prompt('First: the colour is teal.'));
      succeeded(await session.prompt('Second: the animal is an otter.'));
      assert.ok(session.capabilities.sessionCapabilities?.fork, 'the maintained adapter advertises session/fork');
      const whole = await session.fork();
      try {
        succeeded(await whole.prompt('Fork question one.'));
        const body = bodyText(turnAsking(ctx, 'Fork question one.'));
        assert.ok(body.includes('teal') && body.includes('otter'), 'the fork holds both turns');
      } finally {
        await whole.close();
      }
      succeeded(await session.prompt('Original again.'));
      assert.ok(!bodyText(turnAsking(ctx, 'Original again.')).includes('Fork question one.'), "the original does not hold the fork's turn");
      const early = await session.fork({ atTurn: 1 });
      try {
        const turn = await early.prompt('Fork question two.');
        succeeded(turn);
        assert.equal(turn.context.carried, 2);
        const body = bodyText(turnAsking(ctx, 'Fork question two.'));
        assert.ok(body.includes('teal') && !body.includes('otter'), 'turn 1 and not turn 2');
        assert.deepEqual(early.history().entries.filter((e) => e.kind === 'request').map((e) => [e.turn, e.text]), [[1, 'First: the colour is teal.'], [2, 'Fork question two.']]);
      } finally {
        await early.close();
      }
      const listed = await store.listConversations();
      assert.equal(listed.length, 3, 'the conversation and its two forks');
      const forks = listed.filter((c) => c.forkedFrom).map((c) => [c.forkedFrom.conversationId, c.forkedFrom.atTurn]).sort((a, b) => a[1] - b[1]);
      assert.deepEqual(forks, [[session.conversationId, 1], [session.conversationId, 2]]);
    } finally {
      await session.close();
    }
  }));
