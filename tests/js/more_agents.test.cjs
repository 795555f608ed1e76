// Qwen Code, GitHub Copilot CLI and opencode through the package as users
// call them: the recorded runs (tests/fixtures/cli/<agent-type>/<version>/)
// through parseAgentOutput and AgentOutputParser, Copilot's usage file
// through mergeAgentOutputFile, and their command lines.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'cli');
const NEW_AGENTS = ['qwen-code', 'github-copilot', 'opencode'];
const PLAIN = 'Mock reply: use React for the dashboard.';
const TOOL = 'The notes say the launch code is 4217.';

/** Every recorded run of the new agents: `{ agentType, version, scenario, bytes }`. */
function fixtures() {
  const out = [];
  for (const agentType of NEW_AGENTS) {
    for (const version of fs.readdirSync(path.join(FIXTURES, agentType))) {
      for (const file of fs.readdirSync(path.join(FIXTURES, agentType, version)).filter((f) => f.endsWith('.jsonl'))) {
        const bytes = fs.readFileSync(path.join(FIXTURES, agentType, version, file));
        out.push({ agentType, version, scenario: file.replace(/\.jsonl$/, ''), bytes, dir: path.join(FIXTURES, agentType, version) });
      }
    }
  }
  return out;
}

const EXPECTED = {
  plain: { status: 'success', text: PLAIN, tools: 0 },
  'resume-first': { status: 'success', text: PLAIN, tools: 0 },
  resume: { status: 'success', text: PLAIN, tools: 0 },
  tool: { status: 'success', text: TOOL, tools: 1 },
  error400: { status: 'error', text: '', tools: 0 },
  error500: { status: 'error', text: '', tools: 0 },
  'max-turns': { status: 'incomplete', tools: 1 },
  denied: { status: 'success', tools: 1 },
};

test('every recorded run parses to its reply; Buffer and string chunks give the same', () => {
  const all = fixtures();
  assert.ok(all.length >= 19, `${all.length} fixtures`);
  for (const { agentType, version, scenario, bytes } of all) {
    const name = `${agentType} ${version} ${scenario}`;
    const whole = pkg.parseAgentOutput(agentType, bytes);
    const want = EXPECTED[scenario];
    assert.ok(want, name);
    assert.equal(whole.status, want.status, name);
    if ('text' in want) assert.equal(whole.text, want.text, name);
    assert.equal(whole.toolUses.length, want.tools, name);
    assert.equal(typeof whole.sessionId, 'string', name);
    assert.equal(whole.errors.filter((e) => e.fatal).length, want.status === 'error' ? 1 : 0, name);
    assert.deepEqual(pkg.parseAgentOutput(agentType, bytes.toString('utf8')), whole, name);
    for (const size of [1, 3, 64, 1000]) {
      const parser = new pkg.AgentOutputParser(agentType);
      const text = bytes.toString('utf8');
      let streamed = '';
      for (let i = 0; i < bytes.length; i += size) {
        // Buffers split anywhere, strings split at the same offsets of the text.
        const chunk = size === 3 ? text.slice(i, i + size) : bytes.subarray(i, i + size);
        for (const event of parser.push(chunk)) if (event.type === 'text') streamed += event.text;
      }
      assert.deepEqual(parser.finish(), whole, `${name}, chunks of ${size}`);
      assert.equal(streamed, whole.text, `${name}, text events, chunks of ${size}`);
    }
  }
});

test("Copilot's usage file merges into its reply; the session id comes from the last line", () => {
  // The releases that write a usage file (1.0.89 on; 1.0.67 has no
  // --usage-output-file and is checked in cli_versions.test.cjs).
  const withFile = fixtures().filter((f) => f.agentType === 'github-copilot' && fs.existsSync(path.join(f.dir, `${f.scenario}.usage.json`)));
  assert.ok(new Set(withFile.map((f) => f.version)).size >= 2, 'usage files of two releases');
  for (const { agentType, scenario, bytes, dir } of withFile) {
    const reply = pkg.parseAgentOutput(agentType, bytes);
    assert.equal(reply.usage, undefined, scenario);
    const lines = bytes.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(reply.sessionId, lines.at(-1).sessionId, scenario);
    assert.ok(lines.slice(0, -1).every((l) => !JSON.stringify(l).includes(lines.at(-1).sessionId)), `${scenario}: only the last line names the session`);
    const content = fs.readFileSync(path.join(dir, `${scenario}.usage.json`), 'utf8');
    const merged = pkg.mergeAgentOutputFile(agentType, reply, { kind: 'usage', content });
    assert.notEqual(merged, reply, 'a new object');
    assert.equal(reply.usage, undefined, 'the reply given is left as it was');
    const file = JSON.parse(content);
    const models = Object.values(file.modelMetrics);
    const sum = (key) => models.reduce((n, m) => n + m.usage[key], 0);
    if (models.length) {
      assert.deepEqual(merged.usage, {
        inputTokens: sum('inputTokens'),
        cachedInputTokens: sum('cacheReadTokens'),
        outputTokens: sum('outputTokens'),
        totalTokens: sum('inputTokens') + sum('outputTokens'),
        durationMs: file.totalApiDurationMs,
      }, scenario);
    }
    assert.deepEqual({ ...merged, usage: undefined }, { ...reply, usage: undefined }, scenario);
  }
});

test('mergeAgentOutputFile rejects what is not a usage file, naming the field', () => {
  const reply = pkg.parseAgentOutput('github-copilot', '');
  const code = (fn) => {
    try {
      fn();
    } catch (e) {
      return [e.code, e.message];
    }
    return null;
  };
  assert.deepEqual(code(() => pkg.mergeAgentOutputFile('github-copilot', reply, { kind: 'usage', content: '{' }))[0], 'INVALID_INPUT');
  assert.match(code(() => pkg.mergeAgentOutputFile('github-copilot', reply, { kind: 'cost', content: '{}' }))[1], /^file\.kind must be 'usage'/);
  assert.match(code(() => pkg.mergeAgentOutputFile('github-copilot', reply, { kind: 'usage', content: 3 }))[1], /^file\.content must be a string/);
  assert.match(code(() => pkg.mergeAgentOutputFile('github-copilot', null, { kind: 'usage', content: '{}' }))[1], /^reply must be an object/);
  assert.match(code(() => pkg.mergeAgentOutputFile('opencode', reply, { kind: 'usage', content: '{}' }))[1], /opencode writes no usage file/);
  assert.match(code(() => pkg.mergeAgentOutputFile('aider', reply, { kind: 'usage', content: '{}' }))[1], /^agentType must be/);
});

test('the command lines: prompt on stdin, Copilot without -p and with its usage file, opencode without whitespace', () => {
  const input = { ...pkg.sampleInput(), currentMessage: 'What UI framework should we use?' };
  const qwen = pkg.buildCliInvocation('qwen-code', pkg.assemble('qwen-code', input));
  const claude = pkg.assemble('claude-code', input);
  // Claude's layout, under Qwen's own agent type.
  assert.deepEqual(pkg.assemble('qwen-code', input), claude);
  assert.deepEqual(qwen.args, ['-o', 'stream-json', `--append-system-prompt=${claude.systemFlag}`]);
  assert.equal(qwen.stdin, claude.prompt);

  const codex = pkg.assemble('openai-codex', input);
  const copilot = pkg.buildCliInvocation('github-copilot', pkg.assemble('github-copilot', input), { usageFile: '/tmp/u.json', sessionId: 'abc' });
  assert.deepEqual(pkg.assemble('github-copilot', input), codex);
  assert.deepEqual(copilot.args, ['--output-format', 'json', '--no-ask-user', '--session-id=abc', '--usage-output-file=/tmp/u.json']);
  assert.deepEqual(copilot.outputs, [{ path: '/tmp/u.json', kind: 'usage' }]);
  assert.equal(copilot.stdin, codex.prompt);

  const opencode = pkg.buildCliInvocation('opencode', pkg.assemble('opencode', input), { model: 'mock/gpt-mock' });
  assert.deepEqual(pkg.assemble('opencode', input), codex);
  assert.deepEqual(opencode.args, ['run', '--format', 'json', '--print-logs', '--log-level', 'ERROR', '--model=mock/gpt-mock']);
  assert.equal('outputs' in opencode, false);
  assert.throws(
    () => pkg.buildCliInvocation('opencode', codex, { extraArgs: ['--title=two words'] }),
    (e) => e.code === 'INVALID_INPUT' && /^options\.extraArgs\[0\] must not contain whitespace for opencode/.test(e.message),
  );
});
