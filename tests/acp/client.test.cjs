// The client's own features over ACP, against a scripted agent of our own
// (tests/acp/client_agent.mjs, on the official SDK's agent side, given as
// an AgentDefinition): elicitation (answered, declined at once without a
// handler, cancelled with its turn), client terminals (in `cd`, their
// output read, nothing left after release, kill on cancel and close; not
// advertised unless enabled), plans, outputSchema stated in the prompt
// (a corrective turn, then invalid_output), the trace context in `_meta`
// and the environment, and session/fork.
'use strict';
const { after, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');
const { readJsonLines } = require('../cli/requests.cjs');
const { waitFor } = require('../cli/wait.cjs');

const AGENT = path.join(__dirname, 'client_agent.mjs');
const TIMEOUT_MS = 60_000;
const TP = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

/** Every folder a test made, removed once the file's tests are done. */
const made = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-client-')));
  made.push(dir);
  fs.mkdirSync(path.join(dir, 'sub'));
  const log = path.join(dir, 'sent.jsonl');
  const definition = { id: 'client-agent', name: 'Client features agent', command: process.execPath, args: [AGENT], env: { CLIENT_AGENT_LOG: log }, protocol: 'acp' };
  return { dir, log, definition };
}

/** What the agent logged, up to its last complete line (it appends while the test reads). */
const logged = (ctx) => readJsonLines(ctx.log);
const entries = (ctx, method) => logged(ctx).filter((m) => m.method === method);
const options = (ctx, more = {}) => ({ cd: ctx.dir, timeout: 20, maxRetries: 0, ...more });

/** Whether process `pid` still runs. */
function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function gone(pid, ms = 5_000) {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return !alive(pid);
}

test('nothing but fs is advertised unless the app enables terminals and answers elicitations', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const plain = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx));
  assert.equal(plain.success, true, JSON.stringify(plain.error));
  const both = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx, { terminals: true, onElicitation: () => null }));
  assert.equal(both.success, true, JSON.stringify(both.error));
  const [first, second] = entries(ctx, 'initialize').map((m) => m.params.clientCapabilities);
  // (The SDK's schema fills in `auth`'s default as it parses.)
  assert.deepEqual(first.fs, { readTextFile: true, writeTextFile: true });
  assert.equal(first.terminal, false);
  assert.equal(first.elicitation, undefined);
  assert.equal(second.terminal, true);
  assert.deepEqual(second.elicitation, { form: {}, url: {} });
});

test('a form elicitation is answered by onElicitation and its answer is in the reply', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const asked = [];
  const run = await pkg.runAgent(ctx.definition, { prompt: 'ASK which database' }, options(ctx, {
    onElicitation: async (request) => {
      asked.push(request);
      return { action: 'accept', content: { db: request.requestedSchema.properties.db.enum[1] } };
    },
  }));
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(run.reply.text, 'You chose sqlite.');
  assert.equal(asked.length, 1);
  assert.equal(asked[0].mode, 'form');
  assert.equal(asked[0].message, 'Which database should the service use?');
  assert.match(asked[0].sessionId, /^client-session-/);
  assert.deepEqual(entries(ctx, 'elicitation answer')[0].params, { action: 'accept', content: { db: 'sqlite' } });
  // A URL elicitation too.
  const url = await pkg.runAgent(ctx.definition, { prompt: 'ASKURL' }, options(ctx, { onElicitation: (r) => (r.mode === 'url' && r.url === 'https://example.test/login' ? { action: 'accept' } : { action: 'decline' }) }));
  assert.equal(url.reply.text, 'Sign-in: accept');
});

test('without onElicitation a request is declined within a second', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const started = Date.now();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'ASK which database' }, options(ctx));
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(run.reply.text, 'Elicitation: decline');
  const prompted = fs.statSync(ctx.log).mtimeMs; // the answer was logged last
  assert.ok(prompted - started < 10_000);
  // The decline is the engine's own answer: measured from the request to the reply's end.
  assert.ok(run.durationMs < 10_000, `${run.durationMs} ms`);
  const session = await pkg.openAgentSession(ctx.definition, options(ctx));
  try {
    const t0 = Date.now();
    const turn = await session.prompt('ASK again');
    assert.equal(turn.reply.text, 'Elicitation: decline');
    assert.ok(Date.now() - t0 < 1_000, `${Date.now() - t0} ms for a turn whose elicitation was declined`);
  } finally {
    await session.close();
  }
  // A handler that throws: the agent is answered cancel, the call rejects after the run.
  await assert.rejects(
    pkg.runAgent(ctx.definition, { prompt: 'ASK' }, options(ctx, { onElicitation: () => { throw new Error('no form here'); } })),
    /no form here/,
  );
});

test('a bad answer is cancel for the agent and INVALID_INPUT for the app; a cancelled turn cancels its elicitation', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  let asked = false;
  const session = await pkg.openAgentSession(ctx.definition, options(ctx, { onElicitation: (r) => (r.message.includes('database') ? ((asked = true), new Promise(() => {})) : null) }));
  try {
    const turn = session.prompt('WAITASK');
    // Cancelled while the app has the elicitation, unanswered.
    await waitFor(() => asked, 10_000, 'the elicitation to reach the app');
    await session.cancel();
    const ended = await turn;
    assert.equal(ended.error.kind, 'aborted');
    assert.equal(ended.stopReason, 'cancelled');
    const late = await waitFor(() => entries(ctx, 'late answer')[0], 10_000, "the agent's elicitation to be answered");
    assert.deepEqual(late.params, { action: 'cancel' });
  } finally {
    await session.close();
  }
  const bad = await pkg.openAgentSession(ctx.definition, options(ctx, { onElicitation: () => ({ action: 'accept', content: { db: { nested: true } } }) }));
  try {
    await assert.rejects(bad.prompt('ASK'), (err) => err.code === 'INVALID_INPUT' && /content\.db must be a string, a number, a boolean or an array of strings/.test(err.message));
    assert.deepEqual(entries(ctx, 'elicitation answer').at(-1).params, { action: 'cancel' });
  } finally {
    await bad.close();
  }
});

test('a terminal runs in cd, its output is read, and nothing is left after release', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'RUN node' }, options(ctx, { terminals: true }));
  assert.equal(run.success, true, JSON.stringify(run.error));
  const [{ params: term }] = entries(ctx, 'terminal');
  assert.equal(term.exit.exitCode, 3);
  assert.equal(term.output.output, `cwd=${path.join(ctx.dir, 'sub')}\nto stderr\n`);
  assert.equal(term.output.truncated, false);
  assert.deepEqual(term.output.exitStatus, { exitCode: 3, signal: null });
  assert.match(run.reply.text, /exited 3$/);
  // A process still running when released is ended, its whole tree.
  const held = await pkg.runAgent(ctx.definition, { prompt: 'HOLD' }, options(ctx, { terminals: true }));
  assert.equal(held.success, true, JSON.stringify(held.error));
  const pid = Number(/pid=(\d+)/.exec(held.reply.text)[1]);
  assert.ok(await gone(pid), `terminal process ${pid} still runs after release`);
  // Without `terminals: true` the agent's terminal/create is refused (method not found).
  const refused = await pkg.runAgent(ctx.definition, { prompt: 'RUN node' }, options(ctx));
  assert.equal(refused.success, false);
  assert.match(refused.error.message, /Method not found|terminal/i, JSON.stringify(refused.error));
});

test('a running terminal is killed when its turn is cancelled, and when the session closes', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const session = await pkg.openAgentSession(ctx.definition, options(ctx, { terminals: true }));
  try {
    const events = [];
    const turn = session.prompt('KEEP', { onEvent: (e) => events.push(e) });
    let pid;
    for (let i = 0; i < 400 && pid === undefined; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
      const text = events.filter((e) => e.type === 'text').map((e) => e.text).join('');
      pid = /pid=(\d+)/.exec(text)?.[1];
    }
    assert.ok(pid, 'the terminal started');
    assert.ok(alive(Number(pid)));
    await session.cancel();
    const ended = await turn;
    assert.equal(ended.error.kind, 'aborted');
    assert.ok(await gone(Number(pid)), 'killed on cancel');
    const again = session.prompt('KEEP');
    let pid2;
    for (let i = 0; i < 400 && pid2 === undefined; i += 1) {
      await new Promise((r) => setTimeout(r, 25));
      pid2 = entries(ctx, 'terminal').map((m) => /pid=(\d+)/.exec(m.params.output)?.[1]).filter(Boolean)[1];
    }
    assert.ok(pid2, 'the second terminal started');
    await session.close();
    await again;
    assert.ok(await gone(Number(pid2)), 'killed on close');
  } finally {
    await session.close();
  }
});

test('a plan event with its entries and status', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const events = [];
  const run = await pkg.runAgent(ctx.definition, { prompt: 'PLAN it' }, options(ctx, { onEvent: (e) => events.push(e) }));
  assert.equal(run.success, true, JSON.stringify(run.error));
  const plan = events.find((e) => e.type === 'plan');
  assert.deepEqual(plan.entries.map((e) => [e.content, e.status]), [['Read the parser', 'completed'], ['Fix the bug', 'in_progress'], ['Write the test', 'pending']]);
  assert.deepEqual(run.reply.plan, plan.entries);
  assert.equal(run.reply.text, 'Planned.');
});

const REVIEW = {
  type: 'object',
  properties: { verdict: { enum: ['ship', 'hold'] }, score: { type: 'integer', minimum: 0, maximum: 10 } },
  required: ['verdict', 'score'],
  additionalProperties: false,
};

test('outputSchema on an agent without its own way: stated in the prompt, a corrective turn, the validated value', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'SCHEMA review the parser' }, options(ctx, { outputSchema: REVIEW, maxRetries: 2 }));
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.deepEqual(run.reply.structured, { verdict: 'ship', score: 7 });
  const prompts = entries(ctx, 'session/prompt').map((m) => m.params.prompt.map((b) => b.text).join(''));
  assert.equal(prompts.length, 2, 'one corrective turn');
  assert.match(prompts[0], /^SCHEMA review the parser\n\nAnswer with one JSON value that matches this JSON Schema/);
  assert.ok(prompts[0].includes(JSON.stringify(REVIEW)));
  assert.match(prompts[1], /^Your last answer did not match the JSON Schema it had to match:\n- \$: the required property "score" is missing\n- \$.verdict: expected one of "ship", "hold"\n/);
  assert.equal(run.attempts, 2);
  assert.equal(run.reply.usage.inputTokens, 20, 'the usage of both turns');
  // A session turn the same way.
  const session = await pkg.openAgentSession(ctx.definition, options(ctx, { maxRetries: 1 }));
  try {
    const turn = await session.prompt('SCHEMA again', { outputSchema: REVIEW });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.deepEqual(turn.reply.structured, { verdict: 'ship', score: 7 });
    // A bad schema is the turn's failure, as runAgent's run is.
    const refused = await session.prompt('x', { outputSchema: { type: 'string', pattern: '^a' } });
    assert.equal(refused.error.kind, 'invalid_params');
    assert.match(refused.error.message, /turn\.outputSchema\.pattern: the keyword "pattern" is not supported/);
  } finally {
    await session.close();
  }
});

test('outputSchema never matched: invalid_output with the validation errors after maxRetries corrective turns', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'NEVER in json' }, options(ctx, { outputSchema: REVIEW, maxRetries: 1 }));
  assert.equal(run.success, false);
  assert.equal(run.error.kind, 'invalid_output');
  assert.equal(run.error.retryable, false);
  assert.deepEqual(run.error.validationErrors, ['$: the reply is not JSON']);
  assert.match(run.error.message, /^the reply does not match outputSchema after 1 corrective turn: \$: the reply is not JSON$/);
  assert.equal(run.reply.structured, undefined);
  assert.equal(run.reply.text, 'I would rather not answer in JSON.');
  assert.equal(entries(ctx, 'session/prompt').length, 2);
  // A schema with a keyword that is not checked: the run does not start.
  const bad = await pkg.runAgent(ctx.definition, { prompt: 'x' }, options(ctx, { outputSchema: { type: 'object', properties: { a: { type: 'string', format: 'email', pattern: 'x' } } } }));
  assert.equal(bad.error.kind, 'invalid_params');
  assert.match(bad.error.message, /options\.outputSchema\.properties\.a\.pattern: the keyword "pattern" is not supported in an output schema/);
});

test('traceparent reaches the agent in _meta and as TRACEPARENT; a bad one names the field', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx, { traceparent: TP }));
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(entries(ctx, 'env')[0].params.TRACEPARENT, TP);
  assert.equal(entries(ctx, 'session/new')[0].params._meta.traceparent, TP);
  const traced = entries(ctx, 'session/prompt')[0].params._meta.traceparent;
  // With a tracer recording, the agent gets the turn span's context in the same trace.
  assert.equal(traced.split('-')[1], TP.split('-')[1]);
  const session = await pkg.openAgentSession(ctx.definition, options(ctx, { traceparent: TP }));
  try {
    const own = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await session.prompt('turn', { traceparent: own });
    assert.equal(entries(ctx, 'session/prompt').at(-1).params._meta.traceparent.split('-')[1], own.split('-')[1]);
    const refused = await session.prompt('x', { traceparent: 'not-a-trace' });
    assert.equal(refused.error.kind, 'invalid_params');
    assert.match(refused.error.message, /^invalid parameters: turn\.traceparent must be a W3C traceparent/);
  } finally {
    await session.close();
  }
  const bad = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx, { traceparent: 'x' }));
  assert.equal(bad.error.kind, 'invalid_params');
  assert.match(bad.error.message, /options\.traceparent must be a W3C traceparent/);
});

test('session/fork: a new session on the same process with the history so far', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const agent = await pkg.openAgent(ctx.definition, options(ctx));
  try {
    const session = await agent.newSession();
    assert.equal((await session.prompt('one')).reply.text, 'Hello from turn 1');
    const fork = await session.fork();
    assert.deepEqual(fork.forkedFrom, { conversationId: session.conversationId, sessionId: session.sessionId, atTurn: 1 });
    assert.notEqual(fork.sessionId, session.sessionId);
    assert.equal((await fork.prompt('two')).reply.text, 'Hello from turn 2', 'the fork holds the first turn');
    assert.equal((await session.prompt('two')).reply.text, 'Hello from turn 2', 'the original is untouched');
    const [forked] = entries(ctx, 'session/fork');
    assert.equal(forked.params.sessionId, session.sessionId);
    assert.equal(forked.params.cwd, ctx.dir);
    assert.equal(entries(ctx, 'initialize').length, 1, 'one process');
    await fork.close();
    assert.equal((await session.prompt('three')).reply.text, 'Hello from turn 3');
  } finally {
    await agent.close();
  }
});
