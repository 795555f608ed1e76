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
        console.log('id=' + s.sessionId);
        await s.close();
      })().catch((e) => { console.error(e); process.exit(1); });`);
    const id = /id=(\S+)/.exec(out)[1];
    const store = pkg.openSessionStore(storeDir);
    const [summary] = await store.list();
    assert.deepEqual([summary.sessionId, summary.turns, summary.status, summary.agentType, summary.protocol], [id, 3, 'closed', 'claude-code', protocol]);
    const read = (await store.read(id)).entries;
    assert.deepEqual(read.filter((e) => e.kind === 'request').map((e) => e.text), prompts);
    assert.equal(read.filter((e) => e.kind === 'text').length, 3, 'the replies are in the record');
    const summaryCursor = (await store.read(id)).cursor;
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
      assert.equal(rebuilt.rebuiltFrom, id);
      const turn = await rebuilt.prompt('What is the password?');
      succeeded(turn);
      assert.equal(turn.context.kind, 'full');
      const last = turnAsking(ctx, 'What is the password?');
      assert.ok(bodyText(last).includes('swordfish'), 'the model sees the earlier turn');
    } finally {
      await rebuilt.close();
    }
  }));

test('Claude Code handed off to Codex, and failed over to Codex when over its quota', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx, another) => {
    const codex = await another('codex', 'plain');
    const session = await pkg.openAgentSession('claude-code', optionsOf(ctx));
    try {
      succeeded(await session.prompt('Our project is called Bluefin.'));
      const next = await session.handoff('openai-codex', optionsOf(codex));
      try {
        const turn = await next.prompt('What is the project called?');
        succeeded(turn);
        assert.equal(turn.context.kind, 'full');
        const body = bodyText(turnAsking(codex, 'What is the project called?'));
        assert.ok(body.includes('Bluefin') && body.includes(PLAIN_TEXT.trim().slice(0, 20)), 'Codex sees the Claude conversation');
        assert.deepEqual(next.history().entries.filter((e) => e.kind === 'link').map((e) => [e.relation, e.sessionId]), [['handedOffFrom', session.sessionId]]);
        assert.deepEqual(session.history().entries.filter((e) => e.kind === 'link').map((e) => [e.relation, e.sessionId]), [['handedOffTo', next.sessionId]]);
      } finally {
        await next.close();
      }
    } finally {
      await session.close();
    }
    const quota = await another('claude', 'quota');
    const codex2 = await another('codex', 'plain');
    const events = [];
    const failing = await pkg.openAgentSession('claude-code', optionsOf(quota, { fallback: [{ agent: 'openai-codex', options: optionsOf(codex2) }] }));
    try {
      const turn = await failing.prompt('Summarise the plan.', { onEvent: (e) => e.type === 'handoff' && events.push(e) });
      succeeded(turn);
      assert.equal(turn.handedOffTo.agentType, 'openai-codex');
      assert.deepEqual(events.map((e) => [e.reason, e.from.agentType, e.to.agentType]), [['quota_exceeded', 'claude-code', 'openai-codex']]);
      assert.equal(failing.agentType, 'openai-codex');
      turnAsking(codex2, 'Summarise the plan.');
    } finally {
      await failing.close();
    }
  }));

test('Claude Code: fork after two turns (the adapter’s own session/fork) and fork at turn 1 (rebuilt from the record)', { timeout: TEST_TIMEOUT_MS }, () =>
  withCtx('claude', 'plain', async (ctx) => {
    const session = await pkg.openAgentSession('claude-code', optionsOf(ctx));
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
      } finally {
        await early.close();
      }
      const links = session.history().entries.filter((e) => e.kind === 'link').map((e) => e.relation);
      assert.deepEqual(links, ['forkedTo', 'forkedTo']);
    } finally {
      await session.close();
    }
  }));
