// AgentTeam with real agents over ACP, offline against the mock APIs on
// 127.0.0.1: Carol is Claude Code (its adapter), Max is Codex (its adapter),
// Lin is Gemini CLI. What each member is sent is checked where it matters,
// in the model requests the mocks record: a first turn holds the team task,
// the member's instructions and what concerns it; a later turn sends only
// what is new while the model still sees the earlier turns through the
// session; a team stored and brought back goes on with a delta on the
// resumed session; a member whose session the agent lost gets the whole
// view again on a new one; a member whose agent is over its quota goes on
// with the agent of its fallback, from the whole view, and the team with it.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { AgentTeam } = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { ADAPTERS, CODEX_MODEL } = require('./adapters.cjs');

const TEST_TIMEOUT_MS = 240_000;
const REPLY = PLAIN_PIECES.join('');
const BASE = path.join(harness.ROOT, 'target', 'acp-team');
// The executables the members' sessions start, found on PATH as a user's
// installation would have them.
const COMMANDS = { 'claude-agent-acp': ADAPTERS.claude, 'codex-acp': ADAPTERS.codex, gemini: ADAPTERS.gemini };

/** `scenarios`: a mock's scenario other than `plain` (by cli). */
async function setUp(scenarios = {}) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, 'team-'));
  const mocks = {};
  let env = {};
  let box;
  for (const cli of ['claude', 'codex', 'gemini']) {
    mocks[cli] = await harness.startMock(harness.CLIS[cli].api, scenarios[cli] ?? 'plain', dir);
    // One HOME for the team: each agent's settings are its own files and variables.
    box = harness.sandbox(cli, mocks[cli], dir, { geminiSettings: { general: { maxAttempts: 1 } } });
    env = { ...env, ...box.env };
  }
  // Codex's model: a top-level key, before the tables.
  const config = path.join(box.home, '.codex', 'config.toml');
  fs.writeFileSync(config, `model = "${CODEX_MODEL}"\n${fs.readFileSync(config, 'utf8')}`);
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  for (const [name, target] of Object.entries(COMMANDS)) fs.symlinkSync(target, path.join(bin, name));
  env.PATH = `${bin}${path.delimiter}${env.PATH}`;
  env.CLAUDE_CODE_MAX_RETRIES = '0';
  return { dir, mocks, env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function cleanUp(ctx) {
  for (const mock of Object.values(ctx.mocks)) mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

const members = [
  { id: 'carol', agentType: 'claude-code', systemInstruction: 'You are Carol, the parser author.' },
  { id: 'max', agentType: 'openai-codex', systemInstruction: 'You are Max, the reviewer.' },
  { id: 'lin', agentType: 'google-gemini', systemInstruction: 'You are Lin, the release manager.' },
];

const runOptions = (ctx) => ({ env: ctx.env, timeout: 60, maxDuration: 120, maxRetries: 0, logger: () => {} });

// The calls of each agent's turns, as the mocks log their kind: not the
// side calls beside them (Claude's adapter asks for a session title and a
// suggestion of the next prompt, Codex's for the title of a new thread,
// which holds the thread's first prompt: the member's whole view).
const modelCalls = (ctx, cli) => ctx.mocks[cli].turns();

/** The text of the user's turns in a model request, oldest first, per API. */
function userTurns(cli, body) {
  const text = (blocks) =>
    typeof blocks === 'string' ? blocks : (blocks ?? []).map((b) => b.text ?? '').join('\n');
  if (cli === 'claude') return body.messages.filter((m) => m.role === 'user').map((m) => text(m.content));
  if (cli === 'codex') return body.input.filter((i) => i.role === 'user').map((i) => text(i.content));
  return body.contents.filter((c) => c.role === 'user').map((c) => text(c.parts));
}

/** The one model request whose last user turn holds `needle`. */
function requestFor(ctx, cli, needle) {
  const found = modelCalls(ctx, cli).filter((r) => userTurns(cli, r.body).at(-1).includes(needle));
  assert.equal(found.length, 1, `one ${cli} request whose last user turn holds ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0].body;
}

const everything = (body) => JSON.stringify(body);

/** The first messages of the team: one to Carol, one to Max, one to everyone. */
function postOpening(team) {
  team.post({ from: 'kailai', to: 'carol', content: 'Write the parser, carol-8131' });
  team.post({ from: 'kailai', to: 'max', content: 'Review the tests, max-4471' });
  team.post({ from: 'kailai', content: 'Standup at ten, all-2290' });
}

test('a team of Claude Code, Codex and Gemini CLI: full first turns, deltas after, replies shared', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(setUp, cleanUp, async (ctx) => {
    const team = new AgentTeam({ teamTask: 'Ship the parser', cd: ctx.cwd, members, ...runOptions(ctx) });
    try {
      postOpening(team);

      // Carol's first turn: the task, her instructions, what concerns her.
      const one = await team.ask('carol');
      assert.equal(one.success, true, JSON.stringify(one.error));
      assert.equal(one.context.kind, 'full');
      assert.equal(one.reply.text, REPLY);
      const first = requestFor(ctx, 'claude', 'carol-8131');
      const firstTurn = userTurns('claude', first).at(-1);
      for (const part of ['Ship the parser', 'Write the parser, carol-8131', 'Standup at ten, all-2290']) {
        assert.ok(firstTurn.includes(part), `carol's first turn holds ${part}`);
      }
      // Claude Code takes the instructions as its system prompt.
      assert.ok(everything(first.system).includes('You are Carol, the parser author.'), 'the instructions reach the model');
      assert.ok(!everything(first).includes('max-4471'), 'nothing addressed to another member');
      assert.deepEqual(team.transcript.at(-1), { from: 'carol', content: REPLY });

      // Max's first turn (Codex): its note, the standup, Carol's reply; not Carol's note.
      const two = await team.ask('max', { message: 'Any risks? risks-5120' });
      assert.equal(two.success, true, JSON.stringify(two.error));
      assert.equal(two.context.kind, 'full');
      const maxFirst = requestFor(ctx, 'codex', 'risks-5120');
      const maxTurn = userTurns('codex', maxFirst).at(-1);
      for (const part of ['Ship the parser', 'You are Max, the reviewer.', 'Review the tests, max-4471', 'all-2290', `carol: ${REPLY}`]) {
        assert.ok(maxTurn.includes(part), `max's first turn holds ${part}`);
      }
      assert.ok(!everything(maxFirst).includes('carol-8131'), 'nothing addressed to another member');

      // Carol again: only what is new and concerns her, in the same session;
      // the model still sees her first turn and her reply.
      team.post({ from: 'kailai', to: 'max', content: 'Only for max, max-7002' });
      team.post({ from: 'kailai', to: 'carol', content: 'Add error recovery, carol-3318' });
      const three = await team.ask('carol');
      assert.equal(three.success, true, JSON.stringify(three.error));
      assert.equal(three.context.kind, 'delta');
      assert.equal(three.sessionId, one.sessionId);
      const later = requestFor(ctx, 'claude', 'carol-3318');
      const turns = userTurns('claude', later);
      assert.ok(turns.at(-1).includes(`max: ${REPLY}`), 'Max\'s reply reaches Carol');
      for (const old of ['Ship the parser', 'carol-8131', 'all-2290']) {
        assert.ok(!turns.at(-1).includes(old), `the delta does not send ${old} again`);
      }
      assert.ok(turns.slice(0, -1).some((t) => t.includes('carol-8131')), 'the earlier turn is in the session');
      assert.ok(everything(later.messages).includes(REPLY), 'and so is the earlier reply');
      assert.ok(!everything(later).includes('max-7002'), 'nothing addressed to another member');
      assert.ok(three.context.bytes < one.context.bytes);

      // Lin joins now, on Gemini CLI: the whole history that concerns her.
      const four = await team.ask('lin', { message: 'When can we ship? ship-6604' });
      assert.equal(four.success, true, JSON.stringify(four.error));
      assert.equal(four.context.kind, 'full');
      const linTurn = userTurns('gemini', requestFor(ctx, 'gemini', 'ship-6604')).at(-1);
      for (const part of ['You are Lin, the release manager.', 'all-2290', `carol: ${REPLY}`, `max: ${REPLY}`]) {
        assert.ok(linTurn.includes(part), `lin's first turn holds ${part}`);
      }
      for (const other of ['carol-8131', 'max-4471', 'max-7002', 'carol-3318']) {
        assert.ok(!linTurn.includes(other), `lin is not sent ${other}`);
      }
      assert.equal(team.transcript.filter((m) => m.content === REPLY).length, 4, 'every reply joined the transcript');
    } finally {
      await team.close();
    }
  }));

test('stored and brought back: a delta on the resumed session; a session the agent lost: the whole view again', { timeout: TEST_TIMEOUT_MS }, () =>
  inFreshRun(setUp, cleanUp, async (ctx) => {
    const carolOnly = [members[0]];
    let team = new AgentTeam({ teamTask: 'Ship the parser', cd: ctx.cwd, members: carolOnly, ...runOptions(ctx) });
    let back;
    let again;
    try {
      team.post({ from: 'kailai', to: 'carol', content: 'Write the parser, carol-8131' });
      const one = await team.ask('carol');
      assert.equal(one.success, true, JSON.stringify(one.error));
      const stored = JSON.stringify(team.toJSON());
      await team.close();

      // The app restarts.
      back = AgentTeam.fromJSON(stored, runOptions(ctx));
      back.post({ from: 'kailai', to: 'carol', content: 'Now the tests, carol-9054' });
      const resumed = await back.ask('carol');
      assert.equal(resumed.success, true, JSON.stringify(resumed.error));
      assert.equal(resumed.context.kind, 'delta');
      assert.equal(resumed.sessionId, one.sessionId, 'the same session, resumed');
      const turns = userTurns('claude', requestFor(ctx, 'claude', 'carol-9054'));
      assert.ok(!turns.at(-1).includes('carol-8131') && !turns.at(-1).includes('Ship the parser'), 'only what is new is sent');
      assert.ok(turns.slice(0, -1).some((t) => t.includes('carol-8131')), 'the model sees the first turn through the session');
      await back.close();

      // The agent lost its sessions (its store under HOME is gone): the next
      // turn starts a new session with everything that concerns Carol.
      fs.rmSync(path.join(ctx.home, '.claude', 'projects'), { recursive: true, force: true });
      again = AgentTeam.fromJSON(back.toJSON(), runOptions(ctx));
      const lost = await again.ask('carol', { message: 'Where were we? where-7310' });
      assert.equal(lost.success, true, JSON.stringify(lost.error));
      assert.equal(lost.context.kind, 'full');
      assert.notEqual(lost.sessionId, one.sessionId);
      const fresh = userTurns('claude', requestFor(ctx, 'claude', 'where-7310'));
      for (const part of ['Ship the parser', 'carol-8131', 'carol-9054', `carol: ${REPLY}`]) {
        assert.ok(fresh.at(-1).includes(part), `the whole view again: ${part}`);
      }
      assert.equal(fresh.length, 1, 'on a session with no earlier turns');
    } finally {
      await team.close();
      await back?.close();
      await again?.close();
    }
  }));

test('a member over its quota mid-conversation goes on with Codex from the whole view, and the team keeps going', { timeout: TEST_TIMEOUT_MS }, (t) =>
  // Claude's mock answers HTTP 429 to a call of its agent loop that holds
  // the mark the second exchange carries (mocks/common.cjs), else `plain`.
  inFreshRun(() => setUp({ claude: 'marked429' }), cleanUp, async (ctx) => {
    const team = new AgentTeam({
      teamTask: 'Ship the parser',
      cd: ctx.cwd,
      members: [{ ...members[0], fallback: ['openai-codex'] }, members[1]],
      ...runOptions(ctx),
    });
    try {
      // First exchange: Carol answers on Claude Code, Max on Codex.
      postOpening(team);
      const one = await team.ask('carol');
      assert.equal(one.success, true, JSON.stringify(one.error));
      assert.equal(one.handedOffTo, undefined);
      assert.equal(one.reply.text, REPLY);
      const two = await team.ask('max', { message: 'Any risks? risks-5120' });
      assert.equal(two.success, true, JSON.stringify(two.error));
      assert.ok(userTurns('codex', requestFor(ctx, 'codex', 'risks-5120')).at(-1).includes(`carol: ${REPLY}`), "Claude's reply reaches Max");

      // Second exchange: Claude's API is over its quota for Carol's turn.
      const MARK = 'FAIL_429_TIMES_9_failover';
      team.post({ from: 'kailai', to: 'carol', content: `Add error recovery, carol-3318 ${MARK}` });
      const events = [];
      const started = Date.now();
      const three = await team.ask('carol', { onEvent: (e) => e.type === 'handoff' && events.push(e) });
      const elapsed = Date.now() - started;
      assert.equal(three.success, true, JSON.stringify(three.error));
      assert.ok(elapsed < 60_000, `the failover turn took ${elapsed} ms`);
      t.diagnostic(`the failover turn took ${elapsed} ms`);
      const carol = team.members.find((m) => m.id === 'carol');
      assert.deepEqual([carol.agentType, carol.fallbackUsed], ['openai-codex', 1]);
      assert.deepEqual(three.handedOffTo, { agentType: 'openai-codex', sessionId: carol.sessionId });
      assert.notEqual(carol.sessionId, one.sessionId);
      assert.equal(three.sessionId, carol.sessionId);
      assert.equal(three.context.kind, 'full');
      assert.equal(three.reply.text, REPLY);
      assert.deepEqual(
        events.map((e) => [e.reason, e.from.agentType, e.from.sessionId, e.to.agentType, e.to.sessionId]),
        [['quota_exceeded', 'claude-code', one.sessionId, 'openai-codex', carol.sessionId]],
      );
      // Claude was asked (a delta on its session) and answered 429.
      const refused = modelCalls(ctx, 'claude').filter((r) => userTurns('claude', r.body).at(-1).includes(MARK));
      assert.ok(refused.length >= 1, 'Claude was sent the turn');
      assert.ok(!userTurns('claude', refused[0].body).at(-1).includes('carol-8131'), 'as a delta');
      // Codex's first request for Carol: the whole view, Claude's reply in it;
      // one turn call of hers so far (Codex's title call for her new thread,
      // which holds the same text, is no turn).
      const carolOnCodex = modelCalls(ctx, 'codex').filter((r) => everything(r.body).includes('carol-8131'));
      assert.equal(carolOnCodex.length, 1, "one Codex request of Carol's so far");
      const handed = carolOnCodex[0].body;
      // (Codex sends its environment as a user turn of its own before the prompt.)
      assert.ok(!handed.input.some((i) => i.role === 'assistant'), 'on a new session: no earlier answer in it');
      const whole = userTurns('codex', handed).at(-1);
      for (const part of ['Ship the parser', 'You are Carol, the parser author.', 'Write the parser, carol-8131', 'all-2290', `carol: ${REPLY}`, `max: ${REPLY}`, 'carol-3318']) {
        assert.ok(whole.includes(part), `the handed-off turn holds ${part}`);
      }
      assert.ok(!everything(handed).includes('max-4471') && !everything(handed).includes('risks-5120'), 'nothing addressed to another member');

      // The team goes on: Carol (on Codex now) with a delta on her new session…
      team.post({ from: 'kailai', content: 'Ship it friday, all-5150' });
      const four = await team.ask('carol', { message: 'Tests next? carol-7740' });
      assert.equal(four.success, true, JSON.stringify(four.error));
      assert.equal(four.handedOffTo, undefined);
      assert.equal(four.context.kind, 'delta');
      assert.equal(four.sessionId, carol.sessionId);
      const later = userTurns('codex', requestFor(ctx, 'codex', 'carol-7740'));
      assert.ok(later.at(-1).includes('all-5150'), 'what is new reaches Carol');
      for (const old of ['Ship the parser', 'carol-8131', 'all-2290', 'carol-3318']) {
        assert.ok(!later.at(-1).includes(old), `the delta does not send ${old} again`);
      }
      assert.ok(later.slice(0, -1).some((t) => t.includes('carol-8131') && t.includes('carol-3318')), 'the handed-off turn is in the session');
      // …and Max with a delta on his: Carol's replies from Codex, the new message.
      const five = await team.ask('max', { message: 'Still fine? max-6161' });
      assert.equal(five.success, true, JSON.stringify(five.error));
      assert.equal(five.context.kind, 'delta');
      assert.equal(five.sessionId, two.sessionId);
      const maxLater = userTurns('codex', requestFor(ctx, 'codex', 'max-6161')).at(-1);
      for (const part of ['all-5150', `carol: ${REPLY}`]) assert.ok(maxLater.includes(part), `max's delta holds ${part}`);
      for (const other of ['carol-3318', 'carol-7740', MARK]) assert.ok(!maxLater.includes(other), `max is not sent ${other}`);

      assert.deepEqual(team.members.map((m) => [m.id, m.agentType]), [['carol', 'openai-codex'], ['max', 'openai-codex']]);
      assert.deepEqual(team.transcript.filter((m) => m.content === REPLY).map((m) => m.from), ['carol', 'max', 'carol', 'carol', 'max']);
    } finally {
      await team.close();
    }
  }));
