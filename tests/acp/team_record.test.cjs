// AgentTeam with a session store, on the scripted ACP agent
// (tests/acp/client_agent.mjs, given as AgentDefinitions: a peer for our
// host, never a stand-in for a real agent's output): each member's session
// recorded with its team and member, the team's own record, the team
// brought back with AgentTeam.open in a new Node process; a member whose
// agent is over its quota going on with the next agent of its fallback.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const PKG = path.dirname(require.resolve('agent-context/package.json'));
const TEST_TIMEOUT_MS = 90_000;

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-team-record-')));
  const logOf = (id) => path.join(dir, `${id}.log`);
  // Each agent logs what it was sent to a file of its own.
  const def = (id, env = {}) => ({ id, name: `Scripted ${id}`, command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: logOf(id), ...env }, protocol: 'acp' });
  const prompts = (id) =>
    fs.existsSync(logOf(id))
      ? fs.readFileSync(logOf(id), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.method === 'session/prompt').map((e) => e.params.prompt.map((b) => b.text ?? '').join(''))
      : [];
  return { dir, storeDir: path.join(dir, 'sessions'), def, prompts, done: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Runs `script` in a new Node process with the package; resolves its stdout. */
function inOtherProcess(script) {
  const child = spawn(process.execPath, ['-e', script], { cwd: PKG, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the other process did not finish: ${out}`));
    }, 45_000);
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) return reject(new Error(`exited ${code}: ${out}`));
      resolve(out);
    });
  });
}

test('a team with a store: its members\' sessions and its own record, brought back by AgentTeam.open in a new process', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.openSessionStore(t.storeDir);
    const team = new pkg.AgentTeam({
      teamTask: 'Ship the parser',
      cd: t.dir,
      store,
      maxRetries: 0,
      logger: () => {},
      members: [
        { id: 'carol', definition: t.def('agent-a') },
        { id: 'max', definition: t.def('agent-b') },
      ],
    });
    const teamId = team.teamId;
    assert.match(teamId, /^[0-9a-f-]{36}$/);
    team.post({ from: 'kailai', to: 'carol', content: 'Write the parser' });
    const one = await team.ask('carol');
    assert.equal(one.success, true, JSON.stringify(one.error));
    const two = await team.ask('max', { message: 'Review it' });
    assert.equal(two.success, true, JSON.stringify(two.error));
    const carol = team.members.find((m) => m.id === 'carol');
    await team.close();

    // The store lists the team's record and each member's conversation under the team's id.
    const listed = await store.list({ teamId });
    assert.deepEqual(listed.map((s) => s.agentType).sort(), ['agent-a', 'agent-b', 'agent-team']);
    const own = listed.find((s) => s.agentType === 'agent-team');
    assert.deepEqual([own.conversationId, own.kind, own.title, own.status, own.cd], [teamId, 'team', 'Ship the parser', 'closed', t.dir]);
    assert.deepEqual((await store.listConversations({ teamId })).map((c) => c.memberId).sort(), ['carol', 'max']);
    assert.deepEqual((await store.listConversations({ kind: 'team' })).map((c) => c.conversationId), [teamId]);
    const carolRecord = (await store.read(carol.conversationId)).entries;
    assert.deepEqual([carolRecord[0].kind, carolRecord[0].teamId, carolRecord[0].memberId, carolRecord[0].sessionId], ['part', teamId, 'carol', carol.sessionId]);
    const kinds = (await store.read(teamId)).entries.map((e) => e.kind);
    assert.deepEqual(kinds, ['team', 'member', 'member', 'message', 'member', 'message', 'member', 'member', 'message', 'member', 'closed']);

    // A new process: the team comes back from the store alone and goes on.
    const script = `
      const { AgentTeam, openSessionStore } = require('agent-context');
      (async () => {
        const team = await AgentTeam.open(openSessionStore(${JSON.stringify(t.storeDir)}), ${JSON.stringify(teamId)}, { logger: () => {}, maxRetries: 0 });
        const before = team.transcript;
        const turn = await team.ask('carol', { message: 'Go on' });
        await team.close();
        console.log(JSON.stringify({ before, success: turn.success, kind: turn.context.kind, teamId: team.teamId, members: team.members }));
      })().catch((err) => { console.log(JSON.stringify({ thrown: String(err && err.stack) })); process.exitCode = 1; });`;
    const out = JSON.parse((await inOtherProcess(script)).trim().split('\n').pop());
    assert.equal(out.thrown, undefined, out.thrown);
    assert.deepEqual(out.before, [
      { from: 'kailai', to: 'carol', content: 'Write the parser' },
      { from: 'carol', content: one.reply.text },
      { from: 'max', content: two.reply.text },
    ]);
    assert.equal(out.success, true);
    assert.equal(out.teamId, teamId);
    // The scripted agent cannot reopen a session: carol's new one is sent the whole conversation.
    assert.equal(out.kind, 'full');
    const last = t.prompts('agent-a').at(-1);
    for (const part of ['Ship the parser', 'Write the parser', two.reply.text, 'Go on']) assert.ok(last.includes(part), `${part} in ${last}`);
    const after = (await store.read(teamId)).entries;
    // Carol's seat once (her conversation's new agent session), her reply, her marks after it.
    assert.deepEqual(after.slice(kinds.length).map((e) => e.kind), ['member', 'message', 'member', 'closed']);
    assert.equal(after[kinds.length].member.conversationId, carol.conversationId);
    assert.deepEqual(after.map((e) => e.seq), after.map((_, i) => i + 1));
    // Carol's conversation went on: a new agent session of it (the old one could not be reopened), turns numbered on.
    assert.equal((await store.list({ teamId })).length, 3);
    const carolAfter = (await store.read(carol.conversationId)).entries;
    assert.deepEqual(carolAfter.filter((e) => e.kind === 'part').map((p) => p.reason), ['opened', 'rebuild']);
    assert.deepEqual(carolAfter.filter((e) => e.kind === 'request').map((e) => e.turn), [1, 2]);

    // Not a team's record, or none: a clear error, and the record is let go.
    await assert.rejects(pkg.AgentTeam.open(store, carol.conversationId), (err) => err.code === 'INVALID_INPUT' && /no team/.test(err.message));
    await assert.rejects(pkg.AgentTeam.open(store, 'no-such-team'), (err) => err.code === 'INVALID_INPUT' && /no team "no-such-team"/.test(err.message));
    await assert.rejects(pkg.AgentTeam.open({}, teamId), (err) => err.code === 'INVALID_INPUT');
    const reopened = await pkg.AgentTeam.open(store, teamId, { logger: () => {} });
    await assert.rejects(pkg.AgentTeam.open(store, teamId), (err) => err.code === 'SESSION_LOCKED');
    await reopened.close();
  } finally {
    t.done();
  }
});

test('a member over its quota goes on with the next agent of its fallback, from a full prompt, and the team keeps going', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const store = pkg.memorySessionStore();
    const fallback = [{ agent: t.def('agent-b') }];
    const team = new pkg.AgentTeam({
      teamTask: 'Ship the parser',
      cd: t.dir,
      store,
      maxRetries: 0,
      logger: () => {},
      members: [
        { id: 'carol', definition: t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: '1' }), fallback },
        { id: 'max', definition: t.def('agent-c') },
      ],
    });
    team.post({ from: 'kailai', content: 'Write the parser' });
    const events = [];
    const one = await team.ask('carol', { onEvent: (e) => e.type === 'handoff' && events.push(e) });
    assert.equal(one.success, true, JSON.stringify(one.error));
    const carol = team.members.find((m) => m.id === 'carol');
    assert.deepEqual([carol.agentType, carol.fallbackUsed], ['agent-b', 1]);
    assert.deepEqual(one.handedOffTo, { agentType: 'agent-b', sessionId: carol.sessionId });
    assert.equal(one.context.kind, 'full');
    assert.equal(events.length, 1);
    assert.equal(events[0].reason, 'quota_exceeded');
    assert.equal(events[0].from.agentType, 'agent-a');
    assert.deepEqual(events[0].to, { agentType: 'agent-b', sessionId: carol.sessionId });
    // The over-quota agent was sent the prompt; the next one the whole view.
    assert.equal(t.prompts('agent-a').length, 1);
    const [sent] = t.prompts('agent-b');
    assert.ok(sent.includes('Ship the parser') && sent.includes('Write the parser'), sent);

    // One conversation: both agents' sessions are parts of it, the turn's request once, the failed attempt ended.
    const record = (await store.read(carol.conversationId)).entries;
    assert.deepEqual(record.filter((e) => e.kind === 'part').map((p) => [p.agentType, p.reason, p.memberId]), [['agent-a', 'opened', 'carol'], ['agent-b', 'failover', 'carol']]);
    assert.deepEqual(record.filter((e) => ['request', 'attemptEnd', 'turnEnd'].includes(e.kind)).map((e) => `${e.kind}:${e.turn}`), ['request:1', 'attemptEnd:1', 'turnEnd:1']);

    // The team goes on: max sees carol's reply; carol's next turn is a delta on the new agent.
    const two = await team.ask('max');
    assert.equal(two.success, true);
    assert.ok(t.prompts('agent-c')[0].includes(one.reply.text));
    const three = await team.ask('carol', { message: 'And the tests' });
    assert.equal(three.success, true);
    assert.equal(three.context.kind, 'delta');
    assert.equal(three.handedOffTo, undefined);
    assert.equal(t.prompts('agent-b').length, 2);
    assert.ok(t.prompts('agent-b')[1].includes(two.reply.text));
    const teamId = team.teamId;
    await team.close();

    // Brought back, the member is on the agent it went on with; its fallback is asked for again.
    await assert.rejects(pkg.AgentTeam.open(store, teamId, { logger: () => {} }), (err) => err.code === 'INVALID_INPUT' && /fallback/.test(err.message));
    const back = await pkg.AgentTeam.open(store, teamId, { logger: () => {}, members: [{ id: 'carol', fallback }] });
    assert.deepEqual(back.members.find((m) => m.id === 'carol').agentType, 'agent-b');
    assert.equal(back.transcript.length, 4);
    await back.close();
  } finally {
    t.done();
  }
});

test('a member whose fallback is spent, or whose failure is bad input, fails its turn as before', { timeout: TEST_TIMEOUT_MS }, async () => {
  const t = setUp();
  try {
    const team = new pkg.AgentTeam({
      cd: t.dir,
      maxRetries: 0,
      logger: () => {},
      members: [{ id: 'carol', definition: t.def('agent-a', { CLIENT_AGENT_OVER_QUOTA: '1' }), fallback: [{ agent: t.def('agent-b', { CLIENT_AGENT_OVER_QUOTA: '1' }) }] }],
    });
    team.post({ from: 'kailai', content: 'Write the parser' });
    const turn = await team.ask('carol');
    assert.equal(turn.success, false);
    assert.equal(turn.error.kind, 'quota_exceeded');
    assert.deepEqual(turn.handedOffTo, { agentType: 'agent-b', sessionId: team.members[0].sessionId });
    assert.deepEqual([t.prompts('agent-a').length, t.prompts('agent-b').length], [1, 1]);
    assert.equal(team.teamId, undefined);
    await team.close();
    assert.throws(() => new pkg.AgentTeam({ cd: t.dir, members: [{ id: 'x', definition: t.def('agent-a'), fallback: 'agent-b' }] }), (err) => err.code === 'INVALID_INPUT' && /fallback must be an array/.test(err.message));
  } finally {
    t.done();
  }
});
