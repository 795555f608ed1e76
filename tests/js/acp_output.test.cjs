// The ACP reply model through the package as users call it: every ACP
// transcript recorded from the six real agents (tests/fixtures/acp/, made by
// tests/acp/record_acp.cjs) read with `{ protocol: 'acp' }`, whole and
// streamed, and the `protocol` option's checks.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'acp');
const AGENTS = {
  claude: 'claude-code',
  codex: 'openai-codex',
  gemini: 'google-gemini',
  qwen: 'qwen-code',
  copilot: 'github-copilot',
  opencode: 'opencode',
};
const fixtures = Object.entries(AGENTS).flatMap(([dir, agentType]) =>
  fs.readdirSync(path.join(FIXTURES, dir)).flatMap((version) =>
    fs
      .readdirSync(path.join(FIXTURES, dir, version))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => ({
        name: `${dir} ${version} ${f}`,
        agentType,
        scenario: f.replace('.jsonl', ''),
        bytes: fs.readFileSync(path.join(FIXTURES, dir, version, f)),
      })),
  ),
);

/** The session id the transcript's `session/new` response gives. */
function sessionOf(bytes) {
  for (const line of bytes.toString('utf8').split('\n')) {
    if (!line.includes('"sessionId"')) continue;
    const message = JSON.parse(line);
    if (message.result?.sessionId) return message.result.sessionId;
  }
  return undefined;
}

test('every ACP transcript parses: text, session, status; Buffer, string and chunks agree', () => {
  assert.equal(fixtures.length, 21);
  for (const { name, agentType, scenario, bytes } of fixtures) {
    const whole = pkg.parseAgentOutput(agentType, bytes, { protocol: 'acp' });
    assert.equal(whole.sessionId, sessionOf(bytes), name);
    assert.equal(whole.status, scenario === 'error' ? 'error' : 'success', name);
    if (scenario === 'plain') assert.equal(whole.text, 'Mock reply: use React for the dashboard.', name);
    if (scenario === 'tool' || scenario === 'shell') {
      assert.match(whole.text, /The notes say the launch code is 4217\.$/, name);
      assert.equal(whole.toolUses.length, 1, name);
      assert.equal(whole.toolUses[0].status, 'success', name);
    }
    if (scenario === 'error') assert.equal(whole.errors.filter((e) => e.fatal).length, 1, name);
    assert.deepEqual(pkg.parseAgentOutput(agentType, bytes.toString('utf8'), { protocol: 'acp' }), whole, name);
    for (const size of [3, 64, 4096]) {
      const parser = new pkg.AgentOutputParser(agentType, { protocol: 'acp' });
      let text = '';
      for (let i = 0; i < bytes.length; i += size) {
        for (const event of parser.push(bytes.subarray(i, i + size))) if (event.type === 'text') text += event.text;
      }
      assert.deepEqual(parser.finish(), whole, `${name} in ${size}-byte chunks`);
      assert.equal(text, whole.text, `${name} text events`);
    }
    // The same lines read as the CLI's own format are not this reply.
    assert.notDeepEqual(pkg.parseAgentOutput(agentType, bytes), whole, name);
  }
});

test("protocol: 'cli' is the default; anything else is INVALID_INPUT naming protocol", () => {
  const { bytes } = fixtures.find((f) => f.name === 'claude 0.23.1 plain.jsonl');
  const cli = pkg.parseAgentOutput('claude-code', bytes);
  assert.deepEqual(pkg.parseAgentOutput('claude-code', bytes, { protocol: 'cli' }), cli);
  assert.deepEqual(pkg.parseAgentOutput('claude-code', bytes, {}), cli);
  assert.deepEqual(pkg.parseAgentOutput('claude-code', bytes, { protocol: null }), cli);
  for (const bad of [{ protocol: 'ACP' }, { protocol: 'jsonrpc' }, { protocol: 1 }, 'acp']) {
    for (const call of [
      () => pkg.parseAgentOutput('claude-code', bytes, bad),
      () => new pkg.AgentOutputParser('claude-code', bad),
    ]) {
      assert.throws(call, (err) => {
        assert.equal(err.name, 'AgentContextError', String(err));
        assert.equal(err.code, 'INVALID_INPUT');
        assert.match(err.message, /protocol|options must be an object/);
        return true;
      });
    }
  }
});
