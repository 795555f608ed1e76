// pi and Kimi Code, live and offline against the OpenAI Chat Completions
// mock (tests/cli/openai_chat_server.cjs) on 127.0.0.1, pointed at it by
// the `endpoint` option alone (pi: a provider in the models.json of the
// run's own home; Kimi Code: its KIMI_MODEL_* variables), over one
// protocol: runAgent answers from the mock (its request log holds the
// prompt and the instructions), a second run resumes the session (its
// model request carries the first turn), an unknown session id is
// session_not_found, a session kept open for two turns (the second request
// carries the first turn), a read, an image where the pair takes one, MCP
// servers taken or refused, HTTP 400 and 500, abort.
//
// Each test has its own folder with an empty HOME (the only thing given
// besides the endpoint is PATH, the agent's install folder first: pi's ACP
// adapter finds `pi` there, Kimi Code its Node.js 22) and its own mock, and
// checks that no process with that HOME is left running. One file per
// agent and protocol (tests/cli/run_agent_<agent>.test.cjs,
// tests/acp/run_acp_<agent>.test.cjs) calls `endpointAgentSuite`.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const chat = require('./openai_chat_agents.cjs');
const harness = require('./harness.cjs');
const { PLAIN_PIECES, MCP_NOTE } = require('./mocks/common.cjs');
const { inFreshRun } = require('./processes.cjs');
const { turnCalls, turnsAsking } = require('./requests.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const CONCURRENCY = Number(process.env.ENDPOINT_AGENT_CONCURRENCY || 3);
const BASE = path.join(chat.ROOT, 'target', 'endpoint-agents');
const SYSTEM_MARK = 'Answer as the mock team lead (system mark 7741).';
const NOTE_SERVER = path.join(__dirname, 'mcp', 'note_server.cjs');
/** A 1×1 PNG. */
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/**
 * Per agent (its key in tests/cli/openai_chat_agents.json): an unknown
 * session id of its own form, and what each protocol does that the others
 * do not (each seen on a real run; docs/agents.md).
 */
const FACTS = {
  pi: {
    unknownId: '01a22400-0000-7000-8000-000000000000',
    // Over its CLI the instructions are appended to its system prompt.
    instructions: { cli: 'system', acp: 'prompt' },
    // Its read tools alone (`--tools read,grep,find,ls`); over ACP it asks nothing.
    readOnly: { cli: 'read-only' },
    image: { cli: true, acp: true },
    // pi has no MCP client; its adapter would accept servers and drop them.
    mcp: { cli: /pi takes no MCP servers/, acp: /pi takes no MCP servers/ },
    // Its ACP adapter drops a failed model call's error: the turn ends in
    // silence, and the run says so.
    error400: { cli: 'request_rejected', acp: 'process_error' },
    error500: { cli: 'upstream_error', acp: 'process_error' },
  },
  kimi: {
    unknownId: 'session_3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
    // Codex's layout: the instructions open the prompt (a request's
    // `systemFlag` is folded in over ACP; over the CLI it is the caller's to
    // put there, as for Codex).
    instructions: { cli: 'none', acp: 'prompt' },
    // Its headless mode approves every call and has no read-only mode.
    readOnly: {},
    // Its headless prompt is text; over ACP it takes image blocks.
    image: { cli: /Kimi Code does not take over its command line/, acp: true },
    mcp: { cli: /Kimi Code reads MCP servers only from its own configuration/, acp: true },
    // Over ACP a failed model call ends the turn in silence: the run says so.
    error400: { cli: 'request_rejected', acp: 'process_error' },
    error500: { cli: 'upstream_error', acp: 'process_error' },
  },
};

/** The calls of the agent's turns the mock logged, never a side call beside them (mocks/kinds.cjs). */
const turns = (ctx) => turnCalls(chat.readRequests(ctx.mock.log));
/** The turn calls whose last user message holds `text` (the call opening that prompt's turn). */
const turnsWith = (ctx, text) => turnsAsking(chat.readRequests(ctx.mock.log), text);
const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};
const asked = (ctx, text) => turnsWith(ctx, text).length > 0;
const notesReachedModel = (ctx) => turns(ctx).some((r) => (r.body?.messages ?? []).some((m) => m.role === 'tool' && strings(m.content).some((s) => s.includes('4217'))));

/** A folder with an empty HOME, notes.txt, a mock playing `scenario`; then nothing left running. */
function within(cli, scenario, body) {
  return inFreshRun(
    async () => {
      fs.mkdirSync(BASE, { recursive: true });
      const dir = fs.mkdtempSync(path.join(BASE, `${cli}-${scenario}-`));
      const home = path.join(dir, 'home');
      const work = path.join(dir, 'work');
      const tmp = path.join(dir, 'tmp');
      for (const d of [home, work, tmp]) fs.mkdirSync(d, { recursive: true });
      const notesPath = path.join(work, 'notes.txt');
      fs.writeFileSync(notesPath, chat.NOTES_TEXT);
      const mock = await chat.startMock(scenario, dir, notesPath);
      const env = { ...harness.offlineEnv(home, tmp), PATH: chat.pathFor(cli) };
      return { cli, dir, home, cwd: fs.realpathSync(work), mock, env, sessions: [] };
    },
    (ctx) => {
      chat.stopMock(ctx.mock);
      for (const pid of ctx.servers ?? []) {
        try {
          process.kill(pid, 'SIGTERM');
        } catch {}
      }
      fs.rmSync(ctx.dir, { recursive: true, force: true });
    },
    async (ctx) => {
      try {
        await body(ctx);
      } finally {
        await Promise.allSettled(ctx.sessions.map((s) => s.close()));
      }
    },
  );
}

function options(ctx, protocol, more = {}) {
  return {
    protocol,
    cd: ctx.cwd,
    command: protocol === 'acp' ? chat.acpExecutable(ctx.cli) : chat.executable(ctx.cli),
    env: ctx.env,
    endpoint: { baseUrl: `http://127.0.0.1:${ctx.mock.port}/v1`, apiKey: chat.FAKE_KEY, model: chat.MODEL },
    timeout: 90,
    maxDuration: 180,
    maxRetries: 0,
    ...more,
  };
}

function run(ctx, protocol, { request, ...more } = {}) {
  const instructions = FACTS[ctx.cli].instructions[protocol] === 'none' ? {} : { systemFlag: SYSTEM_MARK };
  return pkg.runAgent(chat.ALL_AGENTS[ctx.cli].agentType, request ?? { prompt: 'Which UI framework should we use?', ...instructions }, options(ctx, protocol, more));
}

function succeeded(result) {
  assert.equal(result.success, true, JSON.stringify(result.error ?? result));
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
}

/** Whether the turn call asking `text` carries `earlier` in a message of `role`. */
function carries(ctx, text, role, earlier) {
  const [call] = turnsWith(ctx, text);
  assert.ok(call, `a turn call asked ${JSON.stringify(text)}`);
  return call.body.messages.some((m) => m.role === role && strings(m.content).some((s) => s.includes(earlier)));
}

/** The suite of `cli` ('pi' or 'kimi') over `protocol` ('cli' or 'acp'). */
function endpointAgentSuite(cli, protocol) {
  const facts = FACTS[cli];
  const agentType = chat.ALL_AGENTS[cli].agentType;
  const skip = chat.available(cli) ? false : `${cli} is not installed (bash tests/cli/install_openai_chat_agents.sh)`;
  describe(`${cli} over ${protocol}, pointed at the mock by endpoint alone`, { concurrency: CONCURRENCY, skip }, () => {
    test('knownAgents lists it with both protocols, its command and its package', () => {
      const known = pkg.knownAgents().find((a) => a.agentType === agentType);
      assert.ok(known, `knownAgents() lists ${agentType}`);
      assert.deepEqual(known.protocols, ['cli', 'acp']);
      assert.equal(known.package, chat.ALL_AGENTS[cli].pkg);
    });

    test('hello from the mock; a second run resumes the session; an unknown id is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const events = [];
        const first = await run(ctx, protocol, { onEvent: (e) => events.push(e) });
        succeeded(first);
        assert.equal(first.reply.text, PLAIN_TEXT);
        assert.ok(first.sessionId, JSON.stringify(first));
        assert.ok(events.some((e) => e.type === 'text'), 'live text events');
        // The prompt and the instructions reached the model, with the run's key.
        assert.ok(asked(ctx, 'Which UI framework should we use?'), 'the request log holds the prompt');
        const system = turns(ctx).some((r) => (r.body?.messages ?? []).some((m) => ['system', 'developer'].includes(m.role) && strings(m.content).some((s) => s.includes(SYSTEM_MARK))));
        if (facts.instructions[protocol] === 'system') assert.ok(system, 'the instructions joined its system prompt');
        else if (facts.instructions[protocol] === 'prompt') assert.ok(asked(ctx, `${SYSTEM_MARK}\n\nWhich UI framework`), 'the instructions open the prompt');
        assert.ok(turns(ctx).some((r) => r.headers?.authorization === `Bearer ${chat.FAKE_KEY}`), 'the endpoint key was sent');
        const second = await run(ctx, protocol, { sessionId: first.sessionId, request: { prompt: 'And for the admin pages?' } });
        succeeded(second);
        assert.equal(second.sessionId, first.sessionId);
        assert.ok(carries(ctx, 'And for the admin pages?', 'assistant', PLAIN_TEXT), 'the first answer went back with the second prompt');
        assert.ok(carries(ctx, 'And for the admin pages?', 'user', 'Which UI framework should we use?'), 'the first prompt went back with the second');
        const unknown = await run(ctx, protocol, { sessionId: facts.unknownId });
        failedWith(unknown, 'session_not_found');
      }));

    test('a session kept for two turns: the second request carries the first turn', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const { maxDuration: _m, ...sessionOptions } = options(ctx, protocol);
        const session = await pkg.openAgentSession(agentType, sessionOptions);
        ctx.sessions.push(session);
        assert.equal(session.protocol, protocol);
        const one = await session.prompt('Which UI framework should we use?');
        succeeded(one);
        assert.equal(one.reply.text, PLAIN_TEXT);
        const two = await session.prompt('And in one word?');
        succeeded(two);
        assert.ok(carries(ctx, 'And in one word?', 'user', 'Which UI framework should we use?'), 'the first prompt went back with the second');
        assert.ok(carries(ctx, 'And in one word?', 'assistant', PLAIN_TEXT), 'the first answer went back with the second');
      }));

    test('a read reaches the model; its tool use is in the reply', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'tool', async (ctx) => {
        const result = await run(ctx, protocol, { request: { prompt: 'Read notes.txt and tell me the launch code.' }, sandbox: facts.readOnly[protocol] });
        succeeded(result);
        assert.ok(notesReachedModel(ctx), 'the notes went back to the model');
        assert.match(result.reply.text, /The notes say the launch code is 4217\./);
        assert.ok(result.reply.toolUses.length > 0, JSON.stringify(result.reply));
      }));

    test(facts.image[protocol] === true ? 'an image reaches the model' : 'an image is refused, naming the way it takes one', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const attachments = [{ type: 'image', mimeType: 'image/png', data: PIXEL }];
        const result = await run(ctx, protocol, { request: { prompt: 'What is in this picture?' }, attachments });
        if (facts.image[protocol] !== true) {
          failedWith(result, 'invalid_params');
          assert.match(result.error.message, facts.image[protocol]);
          return;
        }
        succeeded(result);
        // As an `image_url` data URL (the agent may re-encode it).
        const sent = turns(ctx).some((r) => JSON.stringify(r.body?.messages ?? []).includes('data:image/'));
        assert.ok(sent, 'the image reached the model');
      }));

    test(facts.mcp[protocol] === true ? 'an MCP server over stdio is called' : 'MCP servers are refused, naming why', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'mcp', async (ctx) => {
        const record = path.join(ctx.dir, 'notes-stdio.jsonl');
        const mcpServers = [{ name: 'notes', command: process.execPath, args: [NOTE_SERVER], env: { MCP_NOTE_RECORD: record } }];
        const result = await run(ctx, protocol, { request: { prompt: 'Record the launch window in the team notes.' }, mcpServers, yolo: true });
        if (facts.mcp[protocol] !== true) {
          failedWith(result, 'invalid_params');
          assert.match(result.error.message, facts.mcp[protocol]);
          assert.equal(result.attempts, 0, 'nothing was started');
          return;
        }
        succeeded(result);
        const calls = fs.existsSync(record) ? fs.readFileSync(record, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
        assert.equal(calls.length, 1, `the server was called once: ${JSON.stringify(result.reply)}`);
        assert.deepEqual(calls[0].arguments, { text: MCP_NOTE });
      }));

    test(`an HTTP 400 is ${facts.error400[protocol]}, its message not the reply`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error400', async (ctx) => {
        const result = await run(ctx, protocol);
        failedWith(result, facts.error400[protocol]);
        if (facts.error400[protocol] === 'request_rejected') assert.match(result.error.message, /Mock rejects this request/);
        else assert.match(result.error.message, /the turn ended without a word/);
        assert.doesNotMatch(result.reply.text ?? '', /Mock rejects/);
      }));

    test(`an HTTP 500 is ${facts.error500[protocol]} with maxRetries 0`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const started = Date.now();
        const result = await run(ctx, protocol);
        const seconds = (Date.now() - started) / 1000;
        console.log(`${cli} over ${protocol}: HTTP 500 ended ${result.error?.kind} in ${seconds.toFixed(1)} s after ${turns(ctx).length} turn calls`);
        failedWith(result, facts.error500[protocol]);
        // maxRetries 0: one call, its own retries off.
        assert.equal(turns(ctx).length, 1, 'one model call');
        assert.doesNotMatch(result.reply.text ?? '', /Mock server error/);
      }));

    // Kimi Code on this machine's own Node.js (20): its start fails, and the
    // run says which Node ran it and which it needs.
    const [major, minor] = process.versions.node.split('.').map(Number);
    const oldNode = cli === 'kimi' && (major < 22 || (major === 22 && minor < 19));
    test('started by a Node.js older than it needs: the run names both', { timeout: TEST_TIMEOUT_MS, skip: oldNode ? false : cli === 'kimi' ? `this Node (${process.versions.node}) is new enough for Kimi Code` : 'pi runs on this Node (it needs 20.6)' }, () =>
      within(cli, 'plain', async (ctx) => {
        const result = await run(ctx, protocol, { env: { ...ctx.env, PATH: process.env.PATH } });
        failedWith(result, 'process_error');
        assert.match(result.error.message, new RegExp(`^Kimi Code needs Node\\.js 22\\.19 or newer, and the node that ran it is v${process.versions.node.replace(/\./g, '\\.')}: put a newer node first on the PATH`));
        assert.equal(result.attempts, 1, 'not tried again');
        assert.equal(chat.readRequests(ctx.mock.log).length, 0, 'no request at all');
      }));

    test('abort during the turn: aborted within seconds, nothing left running', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const controller = new AbortController();
        const pending = run(ctx, protocol, { signal: controller.signal, request: { prompt: 'Abort me (mark 5521).' } });
        for (let i = 0; i < 900 && !asked(ctx, 'mark 5521'); i += 1) await new Promise((r) => setTimeout(r, 100));
        assert.ok(asked(ctx, 'mark 5521'), `${cli} sent the prompt to the model`);
        const abortedAt = Date.now();
        controller.abort();
        const result = await pending;
        failedWith(result, 'aborted');
        assert.ok(Date.now() - abortedAt < 10_000, `${Date.now() - abortedAt} ms`);
      }));
  });
}

module.exports = { endpointAgentSuite, FACTS };

