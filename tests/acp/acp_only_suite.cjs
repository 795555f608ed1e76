// The built-in agents driven over the Agent Client Protocol only (Cline,
// Factory Droid), live and offline against the OpenAI Chat Completions mock
// (tests/cli/openai_chat_server.cjs), pointed at it by the `endpoint` option
// alone: the settings file the run writes in its own folder, never a file
// in HOME. The only other thing the tests give is the placeholder account
// key Droid's ACP mode asks for before `session/new` (FACTORY_API_KEY),
// which reaches no host: the mock is the only one reachable. (Cline's,
// CLINE_API_KEY, is the endpoint's key, set by the run.)
//
// One suite per agent (tests/acp/run_acp_<cli>.test.cjs): hello (over ACP
// by default), the conversation continued by a second run, an unknown
// session, a read asked about and allowed, a command rejected, HTTP 400 and
// 500, abort, and a session that stays open for two turns then is loaded in
// a new process. Each test has its own folder with a fresh HOME and its own
// mock, and checks that no process with that HOME is left running.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const chat = require('../cli/openai_chat_agents.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { waitFor } = require('../cli/wait.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnCalls, turnsAsking } = require('../cli/requests.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const CONCURRENCY = Number(process.env.ACP_TEST_CONCURRENCY || 2);
const BASE = path.join(chat.ROOT, 'target', 'acp-only-live');
const SYSTEM_MARK = 'Answer as the mock team lead (system mark 7741).';

/** Per agent: the placeholder its ACP mode wants (beyond the endpoint), an unknown session id of its own form. */
const AGENT = {
  // Cline needs none: the endpoint's key goes in CLINE_API_KEY, which is both its sign-in and the key it sends.
  cline: { env: {}, unknownId: '1795613579933_AbCdE_cli' },
  droid: { env: { FACTORY_API_KEY: 'fk-placeholder-not-a-key' }, unknownId: '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b' },
};

function within(cli, scenario, body) {
  return inFreshRun(() => chat.freshRun(cli, scenario, BASE), chat.endFreshRun, async (ctx) => {
    ctx.sessions = [];
    try {
      await body(ctx);
    } finally {
      await Promise.allSettled(ctx.sessions.map((s) => s.close()));
    }
  });
}

const requests = (ctx) => chat.readRequests(ctx.mock.log);
/** The calls of the agent's turns: not a side call beside them (a title holding the first prompt, Qwen's memory extraction and suggestion holding the history: the mock logs each call's kind). */
const turns = (ctx) => turnCalls(requests(ctx));
/** The first call of the turn asking `text` (its last user message holds it). */
const turnAsking = (ctx, text) => turnsAsking(requests(ctx), text)[0];
const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};
const notesReachedModel = (ctx) => turns(ctx).some((r) => (r.body?.messages ?? []).some((m) => m.role === 'tool' && strings(m.content).some((s) => s.includes('4217'))));
const asked = (ctx, text) => turns(ctx).some((r) => strings(r.body?.messages).some((s) => s.includes(text)));

function endpoint(ctx) {
  return { baseUrl: `http://127.0.0.1:${ctx.mock.port}/v1`, apiKey: chat.FAKE_KEY, model: chat.MODEL };
}

function options(ctx, more = {}) {
  return {
    cd: ctx.cwd,
    command: chat.executable(ctx.cli),
    env: { ...ctx.env, ...AGENT[ctx.cli].env },
    endpoint: endpoint(ctx),
    timeout: 60,
    maxDuration: 150,
    maxRetries: 0,
    ...more,
  };
}

function run(ctx, { request, ...more } = {}) {
  return pkg.runAgent(chat.ALL_AGENTS[ctx.cli].agentType, request ?? { prompt: 'Which UI framework should we use?', systemFlag: SYSTEM_MARK }, options(ctx, more));
}

function succeeded(result) {
  assert.equal(result.success, true, JSON.stringify(result.error));
}

function failedWith(result, kind) {
  assert.equal(result.success, false, JSON.stringify(result));
  assert.equal(result.error.kind, kind, JSON.stringify(result.error));
}

/** No configuration file the user would own appeared in HOME. */
function homeUntouched(ctx, files) {
  for (const file of files) assert.equal(fs.existsSync(path.join(ctx.home, file)), false, `${file} was written in HOME`);
}

/**
 * The suite of `cli` ('cline' or 'droid'); `userFiles` the configuration
 * files of the user's that the run must not write; `error400` the kind an
 * HTTP 400 must give; `error500` the kind an HTTP 500 on every call gives
 * with its run options and the words of its message.
 */
module.exports = function acpOnlySuite(cli, { userFiles, error400, error500 }) {
  const skip = chat.available(cli) ? false : `${cli} is not installed (tests/cli/install_openai_chat_agents.sh)`;
  const agentType = chat.ALL_AGENTS[cli].agentType;
  describe(`an agent driven over ACP only: ${cli}`, { concurrency: CONCURRENCY, skip }, () => {
    test('the registry says ACP only; the command line is INVALID_INPUT naming the agent', () => {
      const known = pkg.knownAgents().find((a) => a.agentType === agentType);
      assert.deepEqual(known.protocols, ['acp']);
      assert.equal(known.definition.protocol, 'acp');
      assert.throws(() => pkg.buildCliInvocation(agentType, { prompt: 'x' }), (err) => err.code === 'INVALID_INPUT' && err.message.startsWith(`agentType '${agentType}': ${known.name} is driven over the Agent Client Protocol only`));
      assert.throws(() => pkg.parseAgentOutput(agentType, '', { protocol: 'cli' }), (err) => err.code === 'INVALID_INPUT' && err.message.includes(known.name));
      // Its ACP lines are what its output is read as by default.
      const reply = pkg.parseAgentOutput(agentType, '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hi"}}}}\n');
      assert.equal(reply.text, 'Hi');
    });

    test('hello over ACP by default, the endpoint from the run\'s own file; a second run continues the session; an unknown id is session_not_found', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const events = [];
        const first = await run(ctx, { onEvent: (e) => events.push(e) });
        succeeded(first);
        assert.equal(first.reply.text, PLAIN_TEXT);
        assert.equal(first.reply.status, 'success');
        assert.ok(first.sessionId, JSON.stringify(first));
        assert.ok(events.some((e) => e.type === 'text'), 'live text events');
        assert.ok(asked(ctx, `${SYSTEM_MARK}\n\nWhich UI framework`), 'the instructions open the prompt');
        // The run's key reached the mock; nothing of the user's was written.
        assert.ok(turns(ctx).some((r) => r.headers?.authorization === `Bearer ${chat.FAKE_KEY}`), 'the endpoint key was sent');
        homeUntouched(ctx, userFiles);
        const second = await run(ctx, { sessionId: first.sessionId, request: { prompt: 'And for the admin pages?' } });
        succeeded(second);
        assert.equal(second.sessionId, first.sessionId);
        const last = turnAsking(ctx, 'And for the admin pages?');
        assert.ok(last, 'the second prompt reached the model');
        assert.ok(last.body.messages.some((m) => m.role === 'assistant' && strings(m.content).some((s) => s.includes(PLAIN_TEXT))), 'the first answer went back with it');
        const unknown = await run(ctx, { sessionId: AGENT[cli].unknownId });
        failedWith(unknown, 'session_not_found');
        // protocol 'cli' is an invalid_params run naming the agent.
        const overCli = await run(ctx, { protocol: 'cli' });
        failedWith(overCli, 'invalid_params');
        assert.match(overCli.error.message, /driven over the Agent Client Protocol only/);
      }));

    test('a read asked about and allowed by the policy reaches the model', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'tool', async (ctx) => {
        const permissions = [];
        const result = await run(ctx, { request: { prompt: 'Read notes.txt and tell me the launch code.' }, sandbox: 'read-only', onPermission: (r) => (permissions.push(r), undefined) });
        succeeded(result);
        assert.ok(notesReachedModel(ctx), 'the notes went back to the model');
        assert.match(result.reply.text, /The notes say the launch code is 4217\./);
        assert.ok(result.reply.toolUses.length > 0, JSON.stringify(result.reply));
      }));

    test('a shell command rejected by onPermission does not run', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'shell', async (ctx) => {
        const permissions = [];
        await run(ctx, { request: { prompt: 'Run cat notes.txt and tell me the launch code.' }, onPermission: (r) => (permissions.push(r), 'reject') });
        assert.ok(permissions.length > 0, `${cli} asked`);
        assert.equal(notesReachedModel(ctx), false, 'rejected: the command did not run');
      }));

    test(`an HTTP 400 is ${error400}, its message not the reply`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error400', async (ctx) => {
        const result = await run(ctx);
        failedWith(result, error400);
        assert.match(result.error.message, /Mock rejects this request/);
        assert.doesNotMatch(result.reply.text ?? '', /Mock rejects/);
      }));

    test(`an HTTP 500 is ${error500.kind}`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'error500', async (ctx) => {
        const started = Date.now();
        const result = await run(ctx, error500.options);
        const seconds = (Date.now() - started) / 1000;
        console.log(`${cli}: HTTP 500 ended ${result.error?.kind} in ${seconds.toFixed(1)} s after ${requests(ctx).length} model calls`);
        failedWith(result, error500.kind);
        assert.match(result.error.message, error500.message);
        assert.doesNotMatch(result.reply.text ?? '', /Mock server error/);
      }));

    test('abort during the turn: aborted within seconds, nothing left running', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'stall', async (ctx) => {
        const controller = new AbortController();
        const pending = run(ctx, { signal: controller.signal, request: { prompt: 'Abort me (mark 5521).' } });
        await waitFor(() => asked(ctx, 'mark 5521'), 60_000, `${cli} to send the prompt to the model`);
        const abortedAt = Date.now();
        controller.abort();
        const result = await pending;
        failedWith(result, 'aborted');
        assert.ok(Date.now() - abortedAt < 10_000, `${Date.now() - abortedAt} ms`);
      }));

    test('a session kept open for two turns, then loaded in a new process', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const { protocol: _p, maxDuration: _m, ...sessionOptions } = options(ctx);
        const session = await pkg.openAgentSession(agentType, sessionOptions);
        ctx.sessions.push(session);
        assert.equal(session.protocol, 'acp');
        const one = await session.prompt('Which UI framework should we use?');
        succeeded(one);
        assert.equal(one.reply.text, PLAIN_TEXT);
        const two = await session.prompt('And in one word?');
        succeeded(two);
        const id = session.sessionId;
        await session.close();
        const again = await pkg.openAgentSession(agentType, { ...sessionOptions, sessionId: id });
        ctx.sessions.push(again);
        const three = await again.prompt('And for the admin pages?');
        succeeded(three);
        assert.equal(again.sessionId, id);
        const last = turnAsking(ctx, 'And for the admin pages?');
        assert.ok(last, 'the third prompt reached the model');
        assert.ok(last.body.messages.some((m) => m.role === 'user' && strings(m.content).some((s) => s.includes('And in one word?'))), 'the loaded session carries the earlier turns');
      }));
  });
};
