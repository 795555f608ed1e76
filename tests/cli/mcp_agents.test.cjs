// `agent-context mcp` (SPEC §10) with the real Claude Code, Codex and
// Gemini CLIs on PATH (the pinned dev dependencies), offline against the
// mock APIs on 127.0.0.1, through an MCP client of the official v2 SDK
// (@modelcontextprotocol/client): the tools are the agents found, `codex`
// and `claude` answer with seed 003's envelope, and a long reply is cut
// head + tail with the whole of it in `result_file`.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const { PLAIN_PIECES, LONG_PIECES } = require('./mocks/common.cjs');
const { assertNothingLeft } = require('./processes.cjs');
const { waitFor } = require('./wait.cjs');

const TEST_TIMEOUT_MS = 180_000;
const BIN = path.join(harness.ROOT, 'bin', 'agent-context.js');
const PLAIN_TEXT = PLAIN_PIECES.join('');
const LONG_TEXT = LONG_PIECES.join('');
const SUCCESS_KEYS = ['success', 'tool', 'SESSION_ID', 'result', 'duration'];
const FAILURE_KEYS = ['success', 'tool', 'error', 'error_kind', 'error_detail', 'duration'];
const DETAIL_KEYS = ['message', 'exit_code', 'last_lines', 'idle_timeout_s', 'max_duration_s', 'retries'];
const TRUNCATED = /\n\[\.\.\. truncated (\d+) bytes \.\.\.\]\n/;

/**
 * One environment for both CLIs: Claude's sandbox (HOME, key, base URL)
 * plus Codex's (CODEX_HOME with the mock provider), each mock playing
 * `scenario`, and the pinned CLIs first on PATH.
 */
async function setUp(scenario) {
  const dir = harness.tempDir(`mcp-${scenario}`);
  const mocks = {};
  const boxes = {};
  for (const cli of ['claude', 'codex']) {
    const sub = path.join(dir, cli);
    fs.mkdirSync(sub);
    mocks[cli] = await harness.startMock(harness.CLIS[cli].api, scenario, sub);
    boxes[cli] = harness.sandbox(cli, mocks[cli], sub);
  }
  const binDir = path.dirname(harness.executable('claude'));
  const env = {
    ...boxes.claude.env,
    CLAUDE_CODE_MAX_RETRIES: '0',
    OPENAI_API_KEY: boxes.codex.env.OPENAI_API_KEY,
    CODEX_HOME: boxes.codex.env.CODEX_HOME,
    PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
  };
  return { dir, mocks, env, home: boxes.claude.env.HOME, cwd: fs.realpathSync(boxes.claude.cwd) };
}

function cleanUp(ctx) {
  for (const mock of Object.values(ctx.mocks)) mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** An MCP client (the official v2 client package's) connected to `agent-context mcp ...args`. */
async function mcpClient(env, args = []) {
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...args], env, stderr: 'pipe' });
  const client = new Client({ name: 'agent-context-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

async function callEnvelope(client, name, args) {
  const answer = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
  assert.equal(answer.content.length, 1);
  const envelope = JSON.parse(answer.content[0].text);
  assert.equal(answer.isError === true, !envelope.success, answer.content[0].text);
  return envelope;
}

function checkSuccess(envelope, tool) {
  assert.equal(envelope.success, true, JSON.stringify(envelope, null, 2));
  assert.deepEqual(Object.keys(envelope).filter((k) => k !== 'result_file'), SUCCESS_KEYS);
  assert.equal(envelope.tool, tool);
  assert.match(envelope.SESSION_ID, /^[0-9a-f-]{36}$/);
  assert.match(envelope.duration, /^\d+m\d+s$/);
}

test('agent-context mcp: one tool per agent found, claude and codex answer with seed 003 envelopes', { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('plain');
  let client;
  try {
    let transport;
    ({ client, transport } = await mcpClient(ctx.env));
    const serverPid = transport.pid;
    const { tools } = await client.listTools();
    // Exactly the registry's agents that resolveAgentCommand finds in this environment, in its order.
    const found = [];
    for (const agent of pkg.knownAgents()) {
      if ((await pkg.resolveAgentCommand(agent.agentType, { env: ctx.env })).found) found.push(agent.mcpTool);
    }
    assert.deepEqual(tools.map((t) => t.name), found);
    for (const name of ['claude', 'codex', 'gemini']) assert.ok(found.includes(name), `${name} is on PATH`);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    assert.deepEqual(byName.gemini.inputSchema, pkg.geminiToolDefinition().inputSchema);
    for (const name of ['claude', 'codex']) {
      const { properties, required } = byName[name].inputSchema;
      assert.deepEqual(Object.keys(properties), [...Object.keys(pkg.geminiToolDefinition().inputSchema.properties), 'max_result_chars', 'protocol']);
      assert.deepEqual(properties.protocol.enum, ['cli', 'acp']);
      assert.deepEqual(required, ['PROMPT', 'cd']);
      assert.equal(properties.max_result_chars.default, 20000);
      assert.doesNotMatch(JSON.stringify(byName[name]), /Gemini/);
    }

    const codex = await callEnvelope(client, 'codex', { PROMPT: 'What UI framework should we use?', cd: ctx.cwd, model: harness.MODELS.codex, max_retries: 0, return_metrics: true });
    const { metrics: _, ...plain } = codex;
    checkSuccess(plain, 'codex');
    assert.equal(codex.result, PLAIN_TEXT);
    assert.equal(codex.metrics.attempts, 1);
    assert.equal(typeof codex.metrics.input_tokens, 'number');
    // Resumed: the same session.
    const again = await callEnvelope(client, 'codex', { PROMPT: 'And the backend?', cd: ctx.cwd, model: harness.MODELS.codex, SESSION_ID: codex.SESSION_ID, max_retries: 0 });
    checkSuccess(again, 'codex');
    assert.equal(again.SESSION_ID, codex.SESSION_ID);

    // Claude Code refuses to skip permissions as root: yolo off there.
    const yolo = process.getuid?.() !== 0;
    const claude = await callEnvelope(client, 'claude', { PROMPT: 'What UI framework should we use?', cd: ctx.cwd, model: harness.MODELS.claude, yolo, max_retries: 0 });
    checkSuccess(claude, 'claude');
    assert.equal(claude.result, PLAIN_TEXT);

    // The same tool over ACP (SPEC §12): Claude through its adapter (on PATH beside it), the same reply.
    const overAcp = await callEnvelope(client, 'claude', { PROMPT: 'What UI framework should we use?', cd: ctx.cwd, model: harness.MODELS.claude, yolo, max_retries: 0, protocol: 'acp' });
    checkSuccess(overAcp, 'claude');
    assert.equal(overAcp.result, PLAIN_TEXT);
    assert.notEqual(overAcp.SESSION_ID, claude.SESSION_ID);
    const badProtocol = await callEnvelope(client, 'codex', { PROMPT: 'x', cd: ctx.cwd, protocol: 'grpc' });
    assert.equal(badProtocol.error_kind, 'invalid_params');
    assert.match(badProtocol.error, /protocol must be "cli" or "acp", got "grpc"/);

    // Bad parameters: invalid_params, naming the parameter; an agent's failure: its kind.
    const bad = await callEnvelope(client, 'claude', { PROMPT: 'x', cd: ctx.cwd, max_result_chars: 5 });
    assert.deepEqual(Object.keys(bad), FAILURE_KEYS);
    assert.deepEqual(Object.keys(bad.error_detail), DETAIL_KEYS);
    assert.equal(bad.error_kind, 'invalid_params');
    assert.match(bad.error, /max_result_chars must be a whole number from 200/);
    const resume = await callEnvelope(client, 'codex', { PROMPT: 'x', cd: ctx.cwd, model: harness.MODELS.codex, SESSION_ID: '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b', max_retries: 0, timeout: 30 });
    assert.deepEqual(Object.keys(resume), FAILURE_KEYS);
    assert.equal(resume.tool, 'codex');
    assert.equal(resume.error_kind, 'session_not_found');
    assert.equal(resume.error_detail.idle_timeout_s, 30);
    assert.equal(resume.error_detail.retries, 0);
    await assert.rejects(client.callTool({ name: 'nobody', arguments: {} }), /unknown tool "nobody": this server's tools are "claude", "codex"/);

    await client.close();
    await waitFor(() => {
      try {
        process.kill(serverPid, 0);
        return false;
      } catch {
        return true;
      }
    }, 10_000, 'the server to exit');
    await assertNothingLeft(ctx.home, 'nothing of the runs is left running');
  } finally {
    await client?.close().catch(() => {});
    cleanUp(ctx);
  }
});

test('agent-context mcp: a long reply is cut head + tail, and result_file holds all of it', { timeout: TEST_TIMEOUT_MS }, async () => {
  const ctx = await setUp('long');
  let client;
  const files = [];
  try {
    ({ client } = await mcpClient(ctx.env, ['--agents', 'codex,claude-code']));
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['claude', 'codex']);
    const yolo = process.getuid?.() !== 0;
    const cases = [
      ['codex', { model: harness.MODELS.codex }, 20000],
      ['claude', { model: harness.MODELS.claude, yolo, max_result_chars: 5000 }, 5000],
    ];
    for (const [name, extra, limit] of cases) {
      const envelope = await callEnvelope(client, name, { PROMPT: 'Write it all.', cd: ctx.cwd, max_retries: 0, ...extra });
      checkSuccess(envelope, name);
      assert.deepEqual(Object.keys(envelope), ['success', 'tool', 'SESSION_ID', 'result', 'result_file', 'duration']);
      files.push(envelope.result_file);
      assert.equal(fs.readFileSync(envelope.result_file, 'utf8'), LONG_TEXT, `${name}: the whole reply is in result_file`);
      const { result } = envelope;
      assert.ok([...result].length <= limit, `${name}: ${[...result].length} characters`);
      assert.ok([...result].length > limit - 40, `${name}: ${[...result].length} characters`);
      const marker = TRUNCATED.exec(result);
      assert.ok(marker, result.slice(0, 200));
      const head = result.slice(0, marker.index);
      const tail = result.slice(marker.index + marker[0].length);
      assert.ok(LONG_TEXT.startsWith(head) && head.length > limit / 3, `${name}: the head`);
      assert.ok(LONG_TEXT.endsWith(tail) && tail.length > limit / 3, `${name}: the tail`);
      assert.equal(Number(marker[1]), Buffer.byteLength(LONG_TEXT) - Buffer.byteLength(head) - Buffer.byteLength(tail));
    }
    // Under the limit: nothing cut, no file.
    const whole = await callEnvelope(client, 'codex', { PROMPT: 'Write it all.', cd: ctx.cwd, model: harness.MODELS.codex, max_retries: 0, max_result_chars: 100000 });
    checkSuccess(whole, 'codex');
    assert.equal(whole.result, LONG_TEXT);
    assert.equal(whole.result_file, undefined);
  } finally {
    await client?.close().catch(() => {});
    for (const file of files) fs.rmSync(file, { force: true });
    cleanUp(ctx);
  }
});
