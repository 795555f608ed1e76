// Options and requests of the Node-only entry points are read like an
// AssemblerInput: an unknown key warns, naming the nearest known key; a
// wrong type is INVALID_INPUT naming the field. No agent runs here: the
// command does not exist, so each call ends at once.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const os = require('node:os');
const pkg = require('agent-context');

const MISSING = '/nonexistent/agent-context-test-agent';

function collect() {
  const said = [];
  return { said, logger: (message, level) => said.push([level, message]) };
}

test('runAgent: unknown option and request keys warn, naming the nearest known key', async () => {
  const { said, logger } = collect();
  const run = await pkg.runAgent('claude-code', { prompt: 'x', system: 'be brief' }, { cd: os.tmpdir(), command: MISSING, maxRetries: 0, resume: 'abc', timeoutMs: 5, session_id: 's', logger });
  assert.equal(run.error.kind, 'command_not_found');
  const messages = said.map(([, m]) => m);
  assert.ok(said.every(([level]) => level === 'warn'));
  assert.ok(messages.some((m) => m.includes('"timeoutMs" (did you mean "timeout"?)')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"session_id" (did you mean "sessionId"?)')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"resume"') && m.includes('sessionId')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('the request has an unknown key "system" (did you mean "systemFlag"?)')), messages.join('\n'));
});

test('runAgent: a value of options.env that is not a string is INVALID_INPUT naming options.env', async () => {
  await assert.rejects(pkg.runAgent('claude-code', { prompt: 'x' }, { cd: os.tmpdir(), env: { PATH: process.env.PATH, DEBUG: 1 } }), (err) => err.code === 'INVALID_INPUT' && err.message === 'options.env.DEBUG must be a string, got number');
});

test('runAgent over the CLI: an MCP server the agent cannot take is refused rather than dropped', async () => {
  const run = await pkg.runAgent('openai-codex', { prompt: 'x' }, { cd: os.tmpdir(), command: process.execPath, mcpServers: [{ name: 'probe', type: 'sse', url: 'http://127.0.0.1:9/sse' }] });
  assert.equal(run.error.kind, 'invalid_params', JSON.stringify(run.error));
  assert.match(run.error.message, /options\.mcpServers\[0\]: Codex does not take MCP servers over sse/);
});

test('openAgentSession: unknown keys warn; a bad field is INVALID_INPUT naming it; a missing adapter names its package', async () => {
  const { said, logger } = collect();
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), command: MISSING, idleclose: 3, logger }), (err) => {
    assert.equal(err.code, 'AGENT_ERROR');
    assert.equal(err.kind, 'command_not_found');
    const adapter = pkg.knownAgents().find((a) => a.agentType === 'claude-code');
    assert.ok(!err.message.includes(adapter.package), `names the ACP adapter, not the CLI's package: ${err.message}`);
    return true;
  });
  assert.ok(said.some(([, m]) => m.includes('"idleclose" (did you mean "idleClose"?)')), JSON.stringify(said));
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), systemPrompt: 7 }), (err) => err.code === 'INVALID_INPUT' && /options\.systemPrompt must be a string/.test(err.message));
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), idleClose: -1 }), (err) => err.code === 'INVALID_INPUT' && /options\.idleClose/.test(err.message));
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), mcpServers: [{ name: 'x', type: 'ws', url: 'u' }] }), (err) => err.code === 'INVALID_INPUT' && /options\.mcpServers\[0\]\.type/.test(err.message));
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), env: { A: 1 } }), (err) => err.code === 'INVALID_INPUT' && err.message === 'options.env.A must be a string, got number');
  await assert.rejects(pkg.openAgentSession('claude-code', { cd: os.tmpdir(), protocol: 'ssh' }), (err) => err.code === 'INVALID_INPUT');
});

test('AgentTeam: unknown keys of the options, a member and a turn warn, naming the nearest known key', async () => {
  const { said, logger } = collect();
  const team = new pkg.AgentTeam({
    teamTask: 'Ship', cd: os.tmpdir(), command: MISSING, maxRetries: 0, timout: 5, logger,
    members: [{ id: 'carol', agentType: 'claude-code', sysInstruction: 'x' }],
  });
  try {
    team.post({ from: 'kailai', content: 'hello' });
    const turn = await team.ask('carol', { mesage: 'go' }).catch((err) => err);
    assert.equal(turn.kind, 'command_not_found', String(turn.message));
  } finally {
    await team.close();
  }
  const messages = said.map(([, m]) => m);
  assert.ok(said.every(([level]) => level === 'warn'));
  assert.ok(messages.some((m) => m.includes('"timout" (did you mean "timeout"?)')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"sysInstruction" (did you mean "systemInstruction"?)')), messages.join('\n'));
  assert.ok(messages.some((m) => m.includes('"mesage" (did you mean "message"?)')), messages.join('\n'));
  assert.throws(() => new pkg.AgentTeam({ cd: os.tmpdir(), members: [{ id: 'x', agentType: 7 }] }), (err) => err.code === 'INVALID_INPUT' && /options\.members\[0\]\.agentType/.test(err.message));
});

test('a fractional maxBytes is rounded down, as the README says', () => {
  const input = { contextMessages: [], currentMessage: 'hi', maxBytes: 1000.9 };
  const { report } = pkg.assembleWithReport('openai-codex', input);
  assert.equal(report.maxBytes, 1000);
});
