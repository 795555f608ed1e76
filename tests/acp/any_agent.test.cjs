// Any ACP agent, given by its definition instead of an agent type: the
// official SDK's agent side (tests/acp/conformance/sdk_agent.mjs, which logs
// what it is sent) started as `node sdk_agent.mjs` through an
// AgentDefinition, with the definition's own arguments and environment, on
// runAgent, openAgentSession, an AgentTeam member, `agent-context run
// --agent-json` and a tool of `agent-context mcp --agent-json`. A
// definition knows nothing of its agent: no quirks, the plain-text layout.
// And what a bad definition or registry entry gets: INVALID_INPUT naming
// the field, a warning for a key the library does not know.
'use strict';
const { after, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const { readJsonLines } = require('../cli/requests.cjs');
const { waitFor } = require('../cli/wait.cjs');
const { AgentContextError, AgentTeam } = pkg;

const ROOT = path.join(__dirname, '..', '..');
const AGENT = path.join(__dirname, 'conformance', 'sdk_agent.mjs');
const BIN = path.join(ROOT, 'bin', 'agent-context.js');
const TIMEOUT_MS = 60_000;

/** Every folder a test made, removed once the file's tests are done. */
const made = [];
after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

function setUp() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-any-agent-')));
  made.push(dir);
  const log = path.join(dir, 'sent.jsonl');
  // The log's path reaches the agent only through the definition's env.
  const definition = { id: 'sdk-reference', name: 'SDK reference agent', command: process.execPath, args: [AGENT], env: { SDK_AGENT_LOG: log }, protocol: 'acp' };
  return { dir, log, definition, env: { ...process.env, SDK_AGENT_LOG: '' } };
}

/** What the agent logged, up to its last complete line (it appends while the test reads). */
const sent = (ctx) => readJsonLines(ctx.log);
const promptTexts = (ctx) => sent(ctx).filter((m) => m.method === 'session/prompt').map((m) => m.params.prompt.map((b) => b.text ?? '').join(''));

const options = (ctx, more = {}) => ({ cd: ctx.dir, env: ctx.env, timeout: 20, maxRetries: 0, ...more });

test('runAgent(definition) runs the agent over ACP with its args and env and returns the same reply model', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const events = [];
  const warnings = [];
  const run = await pkg.runAgent(ctx.definition, { teamTask: 'Ship it', contextMessages: [], currentMessage: 'Say hello', systemInstruction: 'Be brief.' }, options(ctx, { onEvent: (e) => events.push(e), logger: (m) => warnings.push(m) }));
  assert.deepEqual(warnings, [], 'the plain-text layout is what a definition asks for: no fallback notice');
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(run.agentType, 'sdk-reference');
  assert.equal(run.reply.text, 'Hello from turn 1');
  assert.equal(run.reply.status, 'success');
  assert.equal(run.reply.usage.totalTokens, 14);
  assert.match(run.sessionId, /^sdk-session-/);
  assert.equal(run.attempts, 1);
  assert.ok(events.some((e) => e.type === 'text'), JSON.stringify(events));
  const methods = sent(ctx).map((m) => m.method);
  assert.deepEqual(methods.slice(0, 3), ['initialize', 'session/new', 'session/prompt']);
  const opened = sent(ctx).find((m) => m.method === 'session/new');
  assert.equal(opened.params.cwd, ctx.dir);
  assert.equal(opened.params._meta, undefined, 'no Claude-style system prompt for an agent the library does not know');
  // The plain-text layout: the instructions open the one text block, inline.
  const [text] = promptTexts(ctx);
  assert.ok(text.startsWith('Be brief.'), text);
  assert.ok(text.includes('Ship it') && text.includes('Say hello'), text);
});

test('openAgentSession(definition): turns in one process, the session names the definition', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const session = await pkg.openAgentSession(ctx.definition, options(ctx));
  try {
    assert.equal(session.agentType, 'sdk-reference');
    assert.equal(session.protocol, 'acp');
    assert.match(session.sessionId, /^sdk-session-/);
    const one = await session.prompt('Hi');
    const two = await session.prompt({ teamTask: 'T', contextMessages: [], currentMessage: 'again' });
    assert.equal(one.reply.text, 'Hello from turn 1');
    assert.equal(two.reply.text, 'Hello from turn 2');
    assert.equal(two.agentType, 'sdk-reference');
    assert.equal(sent(ctx).filter((m) => m.method === 'initialize').length, 1, 'one process for both turns');
  } finally {
    await session.close();
  }
});

test('an AgentTeam member given by its definition', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const team = new AgentTeam({ teamTask: 'Ship the parser', members: [{ id: 'ref', definition: ctx.definition }], ...options(ctx) });
  try {
    team.post({ from: 'kailai', to: 'ref', content: 'Write the parser' });
    const turn = await team.ask('ref');
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.equal(turn.reply.text, 'Hello from turn 1');
    assert.ok(promptTexts(ctx)[0].includes('Write the parser'));
    const [member] = team.toJSON().members;
    assert.equal(member.agentType, 'sdk-reference');
    assert.deepEqual(member.definition, ctx.definition);
  } finally {
    await team.close();
  }
  assert.throws(() => new AgentTeam({ cd: ctx.dir, members: [{ id: 'x', agentType: 'google-gemini', definition: ctx.definition }] }), /members\[0\]\.agentType must be left out/);
});

test('a bad definition is INVALID_INPUT naming the field; an unknown key is warned', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const { command: _c, ...noCommand } = ctx.definition;
  const run = await pkg.runAgent(noCommand, { prompt: 'Hi' }, options(ctx));
  assert.equal(run.success, false);
  assert.equal(run.error.kind, 'invalid_params');
  assert.match(run.error.message, /agentType\.command must be a non-empty string, got undefined/);
  assert.equal(run.agentType, 'sdk-reference');
  await assert.rejects(pkg.openAgentSession({ ...ctx.definition, id: 5 }, options(ctx)), (err) => err instanceof AgentContextError && err.code === 'INVALID_INPUT' && /agentType\.id must be a non-empty string, got a number/.test(err.message));
  await assert.rejects(pkg.openAgentSession({ ...ctx.definition, args: '--acp' }, options(ctx)), /agentType\.args must be an array of strings, got a string/);
  await assert.rejects(pkg.openAgentSession(ctx.definition, options(ctx, { protocol: 'cli' })), /options\.protocol must be 'acp' for an agent given by its definition/);
  const viaCli = await pkg.runAgent(ctx.definition, { prompt: 'Hi' }, options(ctx, { protocol: 'cli' }));
  assert.equal(viaCli.error.kind, 'invalid_params');
  assert.match(viaCli.error.message, /options\.protocol must be 'acp'/);
  const binary = await pkg.runAgent({ id: 'b', name: 'B', version: '1.0.0', description: 'd', distribution: { binary: { 'linux-x86_64': { archive: 'https://example.invalid/b.tgz', cmd: './b' } } } }, { prompt: 'Hi' }, options(ctx));
  assert.equal(binary.error.kind, 'invalid_params');
  assert.match(binary.error.message, /agentType\.distribution\.binary is an archive to download and unpack/);
  const warnings = [];
  const warned = await pkg.runAgent({ ...ctx.definition, arg: ['x'] }, { prompt: 'Hi' }, options(ctx, { logger: (m) => warnings.push(m) }));
  assert.equal(warned.success, true, JSON.stringify(warned.error));
  assert.deepEqual(warnings, ['[agent-context] the agent definition has an unknown key "arg" (did you mean "args"?); it is ignored']);
  // Something that is neither an agent type nor an object, for a session.
  await assert.rejects(pkg.openAgentSession(42, options(ctx)), /agentType must be 'claude-code', .*to run over ACP, got "42"/);
});

test('knownAgents() describes each built-in agent as a definition', () => {
  for (const agent of pkg.knownAgents()) {
    const { definition } = agent;
    assert.equal(definition.id, agent.agentType);
    assert.equal(definition.protocol, 'acp');
    assert.equal(typeof definition.command, 'string');
    assert.ok(Array.isArray(definition.args));
  }
  const gemini = pkg.knownAgents().find((a) => a.agentType === 'google-gemini');
  assert.deepEqual(gemini.definition, { id: 'google-gemini', name: 'Gemini CLI', command: 'gemini', args: ['--acp'], protocol: 'acp' });
});

/** Runs the command with `stdin`; resolves `{ code, stdout, stderr }`. */
function runBin(args, { env, stdin }) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() });
    });
    child.stdin.end(stdin);
  });
}

test('agent-context run --agent-json runs the definition and prints the AgentRun', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const done = await runBin(['run', '--agent-json', JSON.stringify(ctx.definition), '--cd', ctx.dir, '--max-retries', '0'], { env: ctx.env, stdin: 'Say hello' });
  assert.equal(done.code, 0, done.stderr);
  const run = JSON.parse(done.stdout);
  assert.equal(run.success, true);
  assert.equal(run.agentType, 'sdk-reference');
  assert.equal(run.reply.text, 'Hello from turn 1');
  assert.deepEqual(promptTexts(ctx), ['Say hello']);
  const bad = await runBin(['run', '--agent-json', '{"id":"x"}', '--cd', ctx.dir], { env: ctx.env, stdin: 'Hi' });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /agentType\.command must be a non-empty string/);
  const notJson = await runBin(['run', '--agent-json', '{id', '--cd', ctx.dir], { env: ctx.env, stdin: 'Hi' });
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /--agent-json must be JSON/);
  const both = await runBin(['run', 'google-gemini', '--agent-json', '{}', '--cd', ctx.dir], { env: ctx.env, stdin: 'Hi' });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /give an agent type or --agent-json, not both/);
});

test('agent-context mcp --agent-json serves the definition as a tool named by its id', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--agent-json', JSON.stringify(ctx.definition)], env: ctx.env, stderr: 'pipe' });
  const client = new Client({ name: 'agent-context-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['sdk-reference']);
    const [tool] = tools;
    assert.match(tool.description, /SDK reference agent/);
    assert.equal(tool.inputSchema.properties.protocol, undefined, 'a definition runs over ACP only');
    assert.deepEqual(tool.inputSchema.required, ['PROMPT', 'cd']);
    const answer = await client.callTool({ name: 'sdk-reference', arguments: { PROMPT: 'Say hello', cd: ctx.dir, max_retries: 0 } }, { timeout: 40_000 });
    const envelope = JSON.parse(answer.content[0].text);
    assert.equal(envelope.success, true, answer.content[0].text);
    assert.equal(envelope.result, 'Hello from turn 1');
    assert.match(envelope.SESSION_ID, /^sdk-session-/);
    assert.deepEqual(promptTexts(ctx), ['Say hello']);
    const bad = await client.callTool({ name: 'sdk-reference', arguments: { PROMPT: 'x' } }, { timeout: 40_000 });
    assert.equal(bad.isError, true);
    assert.match(JSON.parse(bad.content[0].text).error, /cd/);
  } finally {
    await client.close();
  }
});

test('runAgent(definition) with a signal aborted before the start ends aborted, as over the CLI, and starts nothing', { timeout: TIMEOUT_MS }, async () => {
  const ctx = setUp();
  const run = await pkg.runAgent(ctx.definition, { prompt: 'Say hello' }, options(ctx, { signal: AbortSignal.abort() }));
  assert.equal(run.success, false);
  assert.equal(run.error.kind, 'aborted', JSON.stringify(run.error));
  assert.match(run.error.message, /aborted by the caller/);
  assert.equal(run.attempts, 0);
  assert.deepEqual(sent(ctx), [], 'the agent was never started');
  // The same over a CLI (the stub is no CLI agent: a built-in type whose command never runs).
  const cli = await pkg.runAgent('google-gemini', { prompt: 'x' }, { cd: ctx.dir, command: '/nonexistent/gemini', signal: AbortSignal.abort(), protocol: 'cli' });
  assert.equal(cli.error.kind, 'aborted', JSON.stringify(cli.error));
  assert.equal(cli.attempts, 0);
});

test('close() resolves once the agent and every process it started are gone', { timeout: TIMEOUT_MS, skip: process.platform === 'win32' && 'POSIX process groups' }, async () => {
  const ctx = setUp();
  const running = () =>
    fs.readdirSync('/proc').filter((pid) => {
      try {
        return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('grandchild-of-acp-agent');
      } catch {
        return false;
      }
    });
  const definition = { ...ctx.definition, args: [path.join(__dirname, 'conformance', 'agent_with_grandchild.mjs')] };
  const session = await pkg.openAgentSession(definition, options(ctx));
  await waitFor(() => running().length > 0, 15_000, 'the agent to start its own process');
  assert.equal(running().length, 1, 'the agent started its own process');
  await session.close();
  assert.deepEqual(running(), [], 'nothing of its tree is left when close() resolves');
});
