// ACP 1.25 on the maintained adapters, offline against the mocks: the
// agent's own context compaction reported to a client that advertises
// `session.compaction` — Claude Code's (claude-agent-acp) on its `/compact`
// command and on its own when the reported usage nears its context window,
// with a summary; Codex's (codex-acp) on `/compact`, with none (opaque) —
// as events, record entries and what a handoff carries afterwards (to the
// scripted agent of tests/acp/client_agent.mjs, which logs what it was
// sent); and what they take of the rest: `dirs` as additionalDirectories,
// session/delete.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const { COMPACT_SUMMARY } = require('../cli/mocks/anthropic.cjs');
const { TEST_TIMEOUT_MS, ACP_MODELS, within, openSession, mainCalls, bodyText, succeeded } = require('./live_sessions.cjs');
// The maintained adapters whatever ACP_ADAPTER_SCOPE says: Zed's frozen ones know none of this.
const { MAINTAINED } = require('./adapters.cjs');
const maintained = (cli) => (cli === 'codex' ? { command: MAINTAINED.codex, model: MAINTAINED.codexModel } : { command: MAINTAINED.claude });

const CLIENT_AGENT = path.join(__dirname, 'client_agent.mjs');
const COMPACT_REQUEST = 'create a detailed summary of the conversation so far';

/** The scripted agent, logging to `<dir>/handoff.jsonl`: what a handoff's first turn carried. */
function handoffTarget(ctx) {
  const log = path.join(ctx.dir, 'handoff.jsonl');
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [CLIENT_AGENT], env: { CLIENT_AGENT_LOG: log }, protocol: 'acp' };
  const carried = () =>
    fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
      .filter((m) => m.method === 'session/prompt')[0].params.prompt[0].text;
  return { definition, carried };
}

/** Two turns, then `second` as the third prompt; the events of each turn from the second on. */
async function compacting(ctx, session, second) {
  succeeded(await session.prompt('Remember the word MARIGOLD.'));
  const events = [];
  const turn = await session.prompt(second, { onEvent: (e) => events.push(e) });
  succeeded(turn);
  return { turn, compactions: events.filter((e) => e.type === 'compaction') };
}

test("Claude Code's /compact: a compaction with its summary, two record entries, and a handoff carries the summary, not the turn it replaced", { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'compact', async (ctx) => {
    const other = path.join(ctx.dir, 'other');
    fs.mkdirSync(other);
    const agent = await pkg.openAgent('claude-code', { cd: ctx.cwd, command: MAINTAINED.claude, model: ACP_MODELS.claude, env: ctx.env, timeout: 60, maxDuration: 150, maxRetries: 0, store: pkg.memorySessionStore(), dirs: [other] });
    let next;
    try {
      const session = await agent.newSession();
      const { turn, compactions } = await compacting(ctx, session, '/compact');
      assert.ok(ctx.mock.requests().some((r) => bodyText(r).includes(COMPACT_REQUEST)), 'Claude Code asked the model for the summary');
      assert.deepEqual(compactions.map((c) => c.status).slice(0, 1), ['in_progress']);
      assert.deepEqual(compactions.at(-1), { type: 'compaction', id: compactions[0].id, status: 'completed', summary: COMPACT_SUMMARY });
      assert.deepEqual(turn.reply.compactions, [{ id: compactions[0].id, status: 'completed', summary: COMPACT_SUMMARY }]);
      const recorded = session.history().entries.filter((e) => e.kind === 'compaction');
      assert.deepEqual(recorded.map((e) => [e.turn, e.status, e.summary]), [[2, 'in_progress', undefined], [2, 'completed', COMPACT_SUMMARY]]);
      succeeded(await session.prompt('Note PEONY.'));
      const target = handoffTarget(ctx);
      next = await session.handoff(target.definition);
      const first = await next.prompt('What next?');
      succeeded(first);
      assert.deepEqual(first.context.compacted, { compactionId: compactions[0].id, replacedTurns: 1 });
      const carried = target.carried();
      assert.match(carried, new RegExp(COMPACT_SUMMARY));
      assert.match(carried, /Note PEONY/);
      assert.doesNotMatch(carried, /MARIGOLD/, 'the turn the summary replaced is not carried');
      // The adapter took the session's dirs (additionalDirectories), and deletes a session.
      assert.ok(agent.capabilities.sessionCapabilities?.additionalDirectories, 'advertised');
      const id = session.sessionId;
      await session.close();
      await agent.deleteSession(id);
      const listed = await agent.listSessions({ cwd: ctx.cwd });
      assert.ok(!listed.sessions.some((s) => s.sessionId === id), 'the deleted session is no longer listed');
    } finally {
      await next?.close();
      await agent.close();
    }
  }));

test('Claude Code compacts on its own when the reported usage nears its context window', { timeout: TEST_TIMEOUT_MS }, () =>
  within('claude', 'compactAuto', async (ctx) => {
    const session = await openSession(ctx, { store: pkg.memorySessionStore(), ...maintained('claude') });
    ctx.sessions.push(session);
    const { turn, compactions } = await compacting(ctx, session, 'And now?');
    assert.equal(compactions.at(-1)?.status, 'completed', JSON.stringify(compactions));
    assert.equal(compactions.at(-1).summary, COMPACT_SUMMARY);
    assert.ok(turn.reply.text.length > 0, 'the turn went on after the compaction');
    assert.equal(session.history().entries.filter((e) => e.kind === 'compaction').length, 2);
    const calls = mainCalls(ctx).map(bodyText);
    const at = calls.findIndex((t) => t.includes(COMPACT_REQUEST));
    assert.ok(at > 0 && calls.slice(at + 1).some((t) => t.includes('And now?')), 'the turn was asked after the summary');
  }));

test("Codex's /compact: a compaction with no summary (opaque), so a handoff carries every turn", { timeout: TEST_TIMEOUT_MS }, () =>
  within('codex', 'plain', async (ctx) => {
    const session = await openSession(ctx, { store: pkg.memorySessionStore(), ...maintained('codex') });
    ctx.sessions.push(session);
    const { turn, compactions } = await compacting(ctx, session, '/compact');
    assert.deepEqual(compactions.map((c) => c.status), ['in_progress', 'completed']);
    assert.equal(compactions.at(-1).summary, undefined, 'Codex sends no summary');
    assert.equal(turn.reply.compactions.length, 1);
    const target = handoffTarget(ctx);
    const next = await session.handoff(target.definition);
    ctx.sessions.push(next);
    const first = await next.prompt('What next?');
    succeeded(first);
    assert.equal(first.context.from, 'all');
    assert.match(target.carried(), /MARIGOLD/, 'every turn carried');
  }));
