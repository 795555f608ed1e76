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
  assert.equal(fixtures.length, 29);
  for (const { name, agentType, scenario, bytes } of fixtures) {
    const whole = pkg.parseAgentOutput(agentType, bytes, { protocol: 'acp' });
    assert.equal(whole.sessionId, sessionOf(bytes), name);
    assert.equal(whole.status, scenario === 'error' || scenario === 'error500' ? 'error' : 'success', name);
    if (scenario === 'plain') assert.equal(whole.text, 'Mock reply: use React for the dashboard.', name);
    if (scenario === 'tool' || scenario === 'shell') {
      assert.match(whole.text, /The notes say the launch code is 4217\.$/, name);
      assert.equal(whole.toolUses.length, 1, name);
      assert.equal(whole.toolUses[0].status, 'success', name);
    }
    if (scenario === 'error' || scenario === 'error500') assert.ok(whole.errors.some((e) => e.fatal), name);
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

test('a string is read as its UTF-8 bytes: non-ASCII text, a lone surrogate, string chunks', () => {
  // Mostly non-ASCII (the string's UTF-8 is longer than its length: the
  // core writes it in more than one step) and a lone surrogate, which reads
  // as U+FFFD as in Buffer.from(string) (raw: JSON.stringify would escape
  // it, and serde_json refuses an escaped lone surrogate).
  const chunk = (text) =>
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'session/update',
      params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
    });
  const lines = [chunk('é日🎉'.repeat(500)), chunk('a-b').replace('-', '\ud800'), chunk('x'.repeat(70)), '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}'];
  const text = `${lines.join('\n')}\n`;
  const whole = pkg.parseAgentOutput('opencode', text, { protocol: 'acp' });
  assert.equal(whole.text, `${'é日🎉'.repeat(500)}a\ufffdb${'x'.repeat(70)}`);
  assert.equal(whole.status, 'success');
  assert.deepEqual(pkg.parseAgentOutput('opencode', Buffer.from(text), { protocol: 'acp' }), whole);
  for (const size of [1, 7, 1000]) {
    const parser = new pkg.AgentOutputParser('opencode', { protocol: 'acp' });
    let events = '';
    for (let i = 0; i < text.length; i += size) {
      for (const event of parser.push(text.slice(i, i + size))) if (event.type === 'text') events += event.text;
    }
    const reply = parser.finish();
    // A string chunk cut between the halves of a pair has two lone halves.
    if (size === 1000) assert.deepEqual(reply, whole, `${size}-unit chunks`);
    assert.equal(events, reply.text, `${size}-unit chunks`);
    assert.equal(reply.status, 'success');
  }
});

test("ACP 1.25's compaction and notice updates: compactions in the reply and events, a notice as an event only, whole and streamed", () => {
  const update = (u) => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: u } });
  const text = [
    { jsonrpc: '2.0', id: 1, result: { protocolVersion: 1 } },
    { jsonrpc: '2.0', id: 2, result: { sessionId: 's1' } },
    update({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'in_progress' }),
    update({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: { type: 'text', text: 'We chose ' } }),
    update({ sessionUpdate: 'notice', severity: 'warning', title: 'Falling back', description: null }),
    update({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k', content: { type: 'text', text: 'SQLite.' } }),
    update({ sessionUpdate: 'compaction_update', compactionId: 'k', status: 'completed' }),
    update({ sessionUpdate: 'compaction_update', compactionId: 'opaque', status: 'completed', summary: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }),
    { jsonrpc: '2.0', id: 3, result: { stopReason: 'end_turn' } },
  ]
    .map((l) => `${JSON.stringify(l)}\n`)
    .join('');
  const whole = pkg.parseAgentOutput('claude-code', text, { protocol: 'acp' });
  const expected = [
    { id: 'k', status: 'completed', summary: 'We chose SQLite.' },
    { id: 'opaque', status: 'completed' },
  ];
  assert.deepEqual(whole.compactions, expected);
  assert.equal(whole.unknownEvents, undefined, 'known kinds');
  assert.equal(whole.status, 'success');
  const parser = new pkg.AgentOutputParser('claude-code', { protocol: 'acp' });
  const events = [];
  for (let at = 0; at < text.length; at += 37) events.push(...parser.push(text.slice(at, at + 37)));
  assert.deepEqual(parser.finish().compactions, expected);
  assert.deepEqual(events.filter((e) => e.type === 'notice'), [{ type: 'notice', severity: 'warning', title: 'Falling back' }]);
  assert.deepEqual(
    events.filter((e) => e.type === 'compaction').map((e) => e.summary ?? null),
    [null, 'We chose ', 'We chose SQLite.', 'We chose SQLite.', null],
  );
});
