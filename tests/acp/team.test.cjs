// AgentTeam against the official SDK's agent side
// (tests/acp/conformance/sdk_agent.mjs, which logs every prompt it is sent):
// what each member's session is sent on its first and later turns, replies
// joining the transcript, a team stored and brought back, a lost session.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { AgentTeam, AgentContextError } = require('agent-context');
const { readJsonLines } = require('../cli/requests.cjs');

const AGENT = path.join(__dirname, 'conformance', 'sdk_agent.mjs');

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-team-')));
  const log = path.join(dir, 'sent.jsonl');
  const sessions = path.join(dir, 'sessions.txt');
  return { dir, log, sessions, env: { ...process.env, SDK_AGENT_LOG: log, SDK_AGENT_SESSIONS: sessions } };
}

/** What the agent logged, up to its last complete line (it appends while the test reads). */
const sent = (ctx) => readJsonLines(ctx.log);

/** The prompt texts each session was sent, by session id. */
function prompts(ctx) {
  const by = new Map();
  for (const m of sent(ctx).filter((m) => m.method === 'session/prompt')) {
    const list = by.get(m.params.sessionId) ?? [];
    list.push(m.params.prompt.map((b) => b.text ?? '').join(''));
    by.set(m.params.sessionId, list);
  }
  return by;
}

const options = (ctx) => ({ cd: ctx.dir, command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0, logger: () => {} });

const members = [
  { id: 'carol', agentType: 'google-gemini', systemInstruction: 'You are Carol, the parser author.' },
  { id: 'max', agentType: 'google-gemini', systemInstruction: 'You are Max, the reviewer.' },
];

test('first turns hold the task, the instructions and what concerns the member; later turns only what is new', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const team = new AgentTeam({ teamTask: 'Ship the parser', members, ...options(ctx) });
  try {
    team.post({ from: 'kailai', to: 'carol', content: 'Write the parser' });
    team.post({ from: 'kailai', to: 'max', content: 'Review the tests' });
    team.post({ from: 'kailai', content: 'Standup at 10' });

    const one = await team.ask('carol');
    assert.equal(one.success, true, JSON.stringify(one.error));
    assert.equal(one.context.kind, 'full');
    const carolSession = team.members.find((m) => m.id === 'carol').sessionId;
    const [first] = prompts(ctx).get(carolSession);
    assert.equal(
      first,
      'Instructions:\nYou are Carol, the parser author.\n\nTeam Task:\nShip the parser\n\nConversation so far:\n- kailai: Write the parser\n- kailai: Standup at 10',
    );
    assert.ok(!first.includes('Review the tests'), 'nothing addressed to another member');
    assert.equal(one.context.bytes, Buffer.byteLength(first));
    // The reply joined the transcript as a message from carol.
    assert.deepEqual(team.transcript.at(-1), { from: 'carol', content: 'Hello from turn 1' });

    // max sees carol's reply (to everyone) on its first turn, with its own message.
    const two = await team.ask('max', { message: 'Any risks?' });
    assert.equal(two.context.kind, 'full');
    const maxSession = team.members.find((m) => m.id === 'max').sessionId;
    assert.notEqual(maxSession, carolSession);
    assert.equal(
      prompts(ctx).get(maxSession)[0],
      'Instructions:\nYou are Max, the reviewer.\n\nTeam Task:\nShip the parser\n\nConversation so far:\n- kailai: Review the tests\n- kailai: Standup at 10\n- carol: Hello from turn 1\n\nYour task:\nAny risks?',
    );

    // carol's next turn: only what is new and concerns it — max's reply and a
    // message to carol; not carol's own reply, not what went to max.
    team.post({ from: 'kailai', to: 'max', content: 'Only for max' });
    team.post({ from: 'kailai', to: 'carol', content: 'Add error recovery' });
    const three = await team.ask('carol', { replyTo: 'kailai' });
    assert.equal(three.context.kind, 'delta');
    assert.equal(three.reply.text, 'Hello from turn 2', 'the same session');
    assert.deepEqual(prompts(ctx).get(carolSession), [first, 'Conversation so far:\n- max: Hello from turn 1\n- kailai: Add error recovery']);
    assert.ok(three.context.bytes < one.context.bytes);
    assert.deepEqual(team.transcript.at(-1), { from: 'carol', to: 'kailai', content: 'Hello from turn 2' });

    // max: the note to it, not carol's reply to kailai nor the note to carol.
    const four = await team.ask('max');
    assert.equal(four.context.kind, 'delta');
    assert.equal(prompts(ctx).get(maxSession)[1], 'Conversation so far:\n- kailai: Only for max');
    // Then nothing new but its own reply: nothing to send without a message.
    await assert.rejects(team.ask('max'), (err) => err instanceof AgentContextError && /nothing to send to member "max"/.test(err.message));
    const five = await team.ask('max', { message: 'Go on' });
    assert.equal(five.context.kind, 'delta');
    assert.equal(prompts(ctx).get(maxSession)[2], 'Your task:\nGo on');

    // People speak through post; members through their turns.
    assert.throws(() => team.post({ from: 'carol', content: 'x' }), /a member's messages are its replies/);
    await assert.rejects(team.ask('nobody'), /no member named "nobody"/);
  } finally {
    await team.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('toJSON then fromJSON: the next turn is a delta on the resumed session; a lost session gets the full prompt again', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  let team = new AgentTeam({ teamTask: 'Ship the parser', members, ...options(ctx) });
  let back;
  try {
    team.post({ from: 'kailai', to: 'carol', content: 'Write the parser' });
    await team.ask('carol');
    await team.ask('max', { message: 'Look at it' });
    const stored = JSON.stringify(team.toJSON());
    await team.close();
    assert.deepEqual(JSON.parse(stored).members.map((m) => m.mark), [1, 2]);

    back = AgentTeam.fromJSON(stored, { command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0, logger: () => {} });
    assert.deepEqual(back.transcript, team.transcript);
    back.post({ from: 'kailai', to: 'carol', content: 'Now the tests' });
    const carolSession = back.members.find((m) => m.id === 'carol').sessionId;
    const resumed = await back.ask('carol');
    assert.equal(resumed.success, true, JSON.stringify(resumed.error));
    assert.equal(resumed.context.kind, 'delta');
    assert.equal(resumed.sessionId, carolSession);
    assert.ok(sent(ctx).some((m) => m.method === 'session/resume' && m.params.sessionId === carolSession));
    assert.equal(prompts(ctx).get(carolSession).at(-1), 'Conversation so far:\n- max: Hello from turn 1\n- kailai: Now the tests');
    await back.close();

    // The agent lost every session: resuming fails, and the member starts a
    // new session with the whole view.
    fs.rmSync(ctx.sessions);
    const again = AgentTeam.fromJSON(back.toJSON(), { command: AGENT, env: ctx.env, timeout: 20, maxRetries: 0, logger: () => {} });
    back = again;
    const lost = await again.ask('carol', { message: 'Where were we?' });
    assert.equal(lost.success, true, JSON.stringify(lost.error));
    assert.equal(lost.context.kind, 'full');
    const fresh = again.members.find((m) => m.id === 'carol').sessionId;
    assert.notEqual(fresh, carolSession);
    assert.equal(
      prompts(ctx).get(fresh)[0],
      'Instructions:\nYou are Carol, the parser author.\n\nTeam Task:\nShip the parser\n\nConversation so far:\n- kailai: Write the parser\n- carol: Hello from turn 1\n- max: Hello from turn 1\n- kailai: Now the tests\n- carol: Hello from turn 1\n\nYour task:\nWhere were we?',
    );
  } finally {
    await team.close();
    await back?.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('a member added later gets the whole history that concerns it; a budget cut is reported', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const warned = [];
  const team = new AgentTeam({ teamTask: 'Ship', members: members.slice(0, 1), ...options(ctx), logger: (m) => warned.push(m) });
  try {
    for (let i = 0; i < 6; i += 1) team.post({ from: 'kailai', content: `note ${i} ${'x'.repeat(40)}` });
    await team.ask('carol');
    team.addMember({ id: 'lin', agentType: 'google-gemini', maxBytes: 200 });
    const turn = await team.ask('lin');
    assert.equal(turn.context.kind, 'full');
    assert.ok(turn.context.dropped.length > 0);
    assert.deepEqual(turn.context.dropped[0], team.transcript[0]);
    assert.equal(turn.context.messages + turn.context.dropped.length, 7, 'six notes and carol\'s reply concern lin');
    assert.ok(turn.context.bytes <= 200);
    assert.ok(warned.some((w) => w.includes('lin\'s prompt left out the')), warned.join('\n'));
    assert.throws(() => team.addMember({ id: 'lin', agentType: 'google-gemini' }), /already on the team/);
  } finally {
    await team.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('a session lost in a turn: the member starts a new session with the whole view, once', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const team = new AgentTeam({ teamTask: 'Ship', members: members.slice(0, 1), ...options(ctx) });
  try {
    team.post({ from: 'kailai', to: 'carol', content: 'Write the parser' });
    await team.ask('carol');
    const first = team.members[0].sessionId;
    // The process dies in the turn; the prompt reached it, so the mark moves on.
    const crashed = await team.ask('carol', { message: 'CRASH now' });
    assert.equal(crashed.success, false);
    assert.equal(crashed.context.kind, 'delta');
    assert.equal(team.members[0].mark, 2);
    // The agent lost its sessions: the next prompt cannot reopen it
    // (session_not_found), and the turn is sent again, full, on a new session.
    fs.rmSync(ctx.sessions);
    team.post({ from: 'kailai', to: 'carol', content: 'Are you there?' });
    const back = await team.ask('carol');
    assert.equal(back.success, true, JSON.stringify(back.error));
    assert.equal(back.context.kind, 'full');
    const fresh = team.members[0].sessionId;
    assert.notEqual(fresh, first);
    assert.equal(
      prompts(ctx).get(fresh)[0],
      'Instructions:\nYou are Carol, the parser author.\n\nTeam Task:\nShip\n\nConversation so far:\n- kailai: Write the parser\n- carol: Hello from turn 1\n- kailai: Are you there?',
    );
    assert.ok(sent(ctx).some((m) => m.method === 'session/resume' && m.params.sessionId === first));
  } finally {
    await team.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('members are checked when the team is made: a typo\'d agent type, an endpoint its agent cannot take', () => {
  const invalid = (make, pattern) =>
    assert.throws(make, (err) => err instanceof AgentContextError && err.code === 'INVALID_INPUT' && pattern.test(err.message), String(pattern));
  invalid(
    () => new AgentTeam({ cd: os.tmpdir(), members: [{ id: 'carol', agentType: 'claud-code' }] }),
    /^options\.members\[0\]\.agentType must be 'claude-code', .* got "claud-code" \(did you mean 'claude-code'\?\)$/,
  );
  const team = new AgentTeam({ cd: os.tmpdir(), members: [] });
  invalid(() => team.addMember({ id: 'max', agentType: 'openai-codx' }), /^member\.agentType must be .* got "openai-codx" \(did you mean 'openai-codex'\?\)$/);
  const anthropic = { baseUrl: 'http://127.0.0.1:9', api: 'anthropic-messages' };
  invalid(
    () => new AgentTeam({ cd: os.tmpdir(), endpoint: anthropic, members: [{ id: 'carol', agentType: 'claude-code' }, { id: 'max', agentType: 'openai-codex' }] }),
    /^member "max" \(Codex\): options\.endpoint\.api is 'anthropic-messages', but Codex calls OpenAI Responses endpoints only .*give this one its own at options\.members\[1\]\.endpoint, or endpoint: null for none\)$/,
  );
  invalid(
    () => new AgentTeam({ cd: os.tmpdir(), endpoint: { baseUrl: 'http://127.0.0.1:9' }, members: [{ id: 'carol', agentType: 'claude-code' }, { id: 'lin', agentType: 'google-gemini' }] }),
    /^options\.endpoint has no api, and the members that take it call different API families \(carol: 'anthropic-messages', lin: 'gemini'\)/,
  );
  invalid(
    () => new AgentTeam({ cd: os.tmpdir(), members: [{ id: 'lin', agentType: 'google-gemini', endpoint: { baseUrl: 'http://127.0.0.1:9', api: 'openai-chat' } }] }),
    /^member "lin" \(Gemini CLI\): options\.members\[0\]\.endpoint\.api is 'openai-chat'/,
  );
  invalid(() => new AgentTeam({ cd: os.tmpdir(), members: [{ id: 'x', agentType: 'claude-code', env: { A: 1 } }] }), /^options\.members\[0\]\.env\.A must be a string, got number$/);
});

test('a member\'s own env and command reach its session; the JSON names them without holding them, and fromJSON needs them again', { timeout: 60_000 }, async () => {
  const ctx = setUp();
  const own = path.join(ctx.dir, 'own.jsonl');
  // The team's command is missing: only the member's own starts anything.
  const maxOwn = { id: 'max', command: AGENT, env: { ...ctx.env, SDK_AGENT_LOG: own, SECRET_TOKEN: 'token-4711' } };
  const team = new AgentTeam({
    teamTask: 'Ship', cd: ctx.dir, env: ctx.env, command: path.join(ctx.dir, 'missing'), timeout: 20, maxRetries: 0, logger: () => {},
    members: [{ id: 'max', agentType: 'google-gemini', systemInstruction: 'You are Max.', ...maxOwn }],
  });
  let back;
  try {
    team.post({ from: 'kailai', to: 'max', content: 'Review the tests' });
    const turn = await team.ask('max');
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(sent(ctx), [], 'nothing went to the team\'s log');
    const prompts = readJsonLines(own).filter((m) => m.method === 'session/prompt');
    assert.equal(prompts.length, 1);
    const stored = JSON.stringify(team.toJSON());
    await team.close();
    assert.deepEqual(JSON.parse(stored).members[0].sessionOptions, ['env', 'command']);
    assert.ok(!stored.includes('token-4711'), 'the environment is not stored');
    const rest = { env: ctx.env, timeout: 20, maxRetries: 0, logger: () => {} };
    assert.throws(
      () => AgentTeam.fromJSON(stored, rest),
      /^AgentContextError: json\.members\[0\] \("max"\) ran with its own env, command, which the JSON does not hold: give them again in options\.members/,
    );
    back = AgentTeam.fromJSON(stored, { ...rest, members: [maxOwn] });
    back.post({ from: 'kailai', to: 'max', content: 'And the docs' });
    const again = await back.ask('max');
    assert.equal(again.success, true, JSON.stringify(again.error));
    assert.equal(again.context.kind, 'delta');
    assert.equal(again.sessionId, turn.sessionId);
  } finally {
    await team.close();
    await back?.close();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});
