// Agent output parsing and the CLI command line, through the package name as
// users call them, on the real outputs recorded in tests/fixtures/cli/.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'cli');
const AGENTS = { claude: 'claude-code', codex: 'openai-codex', gemini: 'google-gemini' };
const fixtures = fs
  .readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.jsonl'))
  .map((f) => ({ name: f, agentType: AGENTS[f.split('-')[0]], bytes: fs.readFileSync(path.join(FIXTURES, f)) }));

test('every recorded run parses; Buffer chunks split anywhere give the same reply', () => {
  assert.equal(fixtures.length, 12);
  for (const { name, agentType, bytes } of fixtures) {
    const whole = pkg.parseAgentOutput(agentType, bytes);
    const optional = ['sessionId', 'usage', 'terminalReason', 'apiErrorStatus', 'unknownEvents'];
    assert.deepEqual(Object.keys(whole).filter((k) => !optional.includes(k)), ['text', 'status', 'errors', 'toolUses', 'nonJsonLines'], name);
    assert.equal(typeof whole.sessionId, 'string', name);
    assert.equal(whole.status, /error|empty/.test(name) ? 'error' : 'success', name);
    assert.deepEqual(pkg.parseAgentOutput(agentType, bytes.toString('utf8')), whole, name);
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const parser = new pkg.AgentOutputParser(agentType);
      let text = '';
      for (let i = 0; i < bytes.length; i += size) {
        for (const event of parser.push(bytes.subarray(i, i + size))) if (event.type === 'text') text += event.text;
      }
      assert.deepEqual(parser.finish(), whole, `${name} in ${size}-byte chunks`);
      assert.equal(text, whole.text, `${name} text events`);
    }
  }
});

test('a Gemini run: the echoed prompt is dropped, the reply kept', () => {
  const { bytes } = fixtures.find((f) => f.name === 'gemini-plain.jsonl');
  const reply = pkg.parseAgentOutput('google-gemini', bytes);
  assert.equal(reply.text, 'Mock reply: use React for the dashboard.');
  assert.equal(reply.status, 'success');
  assert.equal(reply.usage.totalTokens, 129);
});

test('string chunks work too, and a spent parser says so', () => {
  const parser = new pkg.AgentOutputParser('openai-codex');
  assert.deepEqual(parser.push('{"type":"thread.started","thread_'), []);
  assert.deepEqual(parser.push('id":"t-9"}\n{"type":"item.completed","item":{"id":"i","type":"agent_message","text":"Hi"}}\n'), [
    { type: 'session', sessionId: 't-9' },
    { type: 'text', text: 'Hi' },
  ]);
  const reply = parser.finish();
  assert.equal(reply.status, 'incomplete');
  assert.throws(() => parser.push('x'), { name: 'AgentContextError', code: 'INVALID_INPUT' });
  assert.throws(() => pkg.parseAgentOutput('claude-code', 42), {
    code: 'INVALID_INPUT',
    message: 'output must be a string or a Uint8Array, got a number',
  });
});

test('an agent type the registry does not know is INVALID_INPUT naming the known ones (SPEC §9)', () => {
  const names = pkg.knownAgents().map((a) => `'${a.agentType}'`);
  const known = `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
  assert.ok(known.startsWith("'claude-code', 'openai-codex'"));
  assert.throws(() => pkg.parseAgentOutput('aider', '\u001b[32mDone.\u001b[0m\nBye'), {
    name: 'AgentContextError',
    code: 'INVALID_INPUT',
    message: `agentType must be ${known} to parse its output, got "aider"`,
  });
  assert.throws(() => new pkg.AgentOutputParser('gemini'), {
    code: 'INVALID_INPUT',
    message: `agentType must be ${known} to parse its output, got "gemini"`,
  });
  assert.throws(() => pkg.buildCliInvocation('aider', { prompt: 'Hi' }), {
    code: 'INVALID_INPUT',
    message: `agentType must be ${known} to build a command line, got "aider"`,
  });
});

test('buildCliInvocation: the assembled prompt on stdin, the system flag in argv', () => {
  const input = pkg.sampleInput();
  const claude = pkg.assemble('claude-code', input);
  const run = pkg.buildCliInvocation('claude-code', claude, { model: 'sonnet', sandbox: 'read-only' });
  assert.deepEqual(Object.keys(run), ['command', 'args', 'stdin', 'files']);
  assert.equal(run.command, 'claude');
  assert.equal(run.stdin, claude.prompt);
  assert.ok(run.args.includes(`--append-system-prompt=${claude.systemFlag}`));
  assert.ok(run.args.includes('--permission-mode=plan'));
  assert.ok(run.args.every((a) => !a.includes(claude.prompt)));

  const codex = pkg.buildCliInvocation('openai-codex', pkg.assemble('openai-codex', input), { sessionId: 't-9', sandbox: 'workspace-write' });
  assert.deepEqual(codex.args, ['exec', '--json', '--skip-git-repo-check', '--sandbox=workspace-write', 'resume', 't-9', '-']);
  const gemini = pkg.buildCliInvocation('google-gemini', pkg.assemble('google-gemini', input), { yolo: true });
  assert.deepEqual(gemini.args, ['-o', 'stream-json', '--skip-trust', '--approval-mode=yolo']);

  assert.throws(() => pkg.buildCliInvocation('claude-code', claude, { model: 4 }), {
    name: 'AgentContextError',
    code: 'INVALID_INPUT',
    message: 'options.model must be a string, got a number',
  });
  assert.throws(() => pkg.buildCliInvocation('google-gemini', claude), { code: 'INVALID_INPUT', message: /systemFlag is only for claude-code/ });
});

test('a JSON line of an unknown type: an unknown event, counted in the reply, never fatal', () => {
  const lines = [
    '{"type":"system","subtype":"init","session_id":"c-1"}',
    '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"Hi"}]}}',
    '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning"}}',
    '{"type":"result","subtype":"success","is_error":false,"terminal_reason":"completed"}',
  ];
  const parser = new pkg.AgentOutputParser('claude-code');
  const events = parser.push(`${lines.join('\n')}\n`);
  assert.deepEqual(
    events.filter((e) => e.type === 'unknown'),
    [
      { type: 'unknown', eventType: 'rate_limit_event', raw: { type: 'rate_limit_event', rate_limit_info: { status: 'allowed' } } },
      { type: 'unknown', eventType: 'rate_limit_event', raw: { type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning' } } },
    ],
  );
  const reply = parser.finish();
  assert.equal(reply.status, 'success');
  assert.equal(reply.text, 'Hi');
  assert.equal(reply.terminalReason, 'completed');
  assert.deepEqual(reply.unknownEvents, [{ type: 'rate_limit_event', count: 2 }]);
  assert.deepEqual(pkg.parseAgentOutput('claude-code', `${lines.join('\n')}\n`), reply);
  // Codex's older schema: `{ id, msg }` lines read into the same reply.
  const older = pkg.parseAgentOutput(
    'openai-codex',
    '{"id":"0","msg":{"type":"task_started"}}\n{"id":"0","msg":{"type":"agent_message","message":"Hello"}}\n{"id":"0","msg":{"type":"mystery"}}\n',
  );
  assert.equal(older.text, 'Hello');
  assert.equal(older.status, 'success');
  assert.deepEqual(older.unknownEvents, [{ type: 'mystery', count: 1 }]);
});

test('agent-context parse --verbose prints the unknown event types on stderr', () => {
  const { spawnSync } = require('node:child_process');
  const bin = path.join(__dirname, '..', '..', 'bin', 'agent-context.js');
  const input = '{"type":"init","session_id":"g"}\n{"type":"thought","x":1}\n{"type":"thought","x":2}\n{"type":"message","role":"assistant","content":"Yes"}\n{"type":"result","status":"success"}\n';
  const verbose = spawnSync(process.execPath, [bin, 'parse', '--agent', 'google-gemini', '--verbose'], { input, encoding: 'utf8', timeout: 30_000 });
  assert.equal(verbose.status, 0, verbose.stderr);
  assert.equal(verbose.stdout, 'Yes\n');
  assert.equal(verbose.stderr, 'agent-context: 2 line(s) of unknown event type "thought"\n');
  const quiet = spawnSync(process.execPath, [bin, 'parse', '--agent', 'google-gemini'], { input, encoding: 'utf8', timeout: 30_000 });
  assert.equal(quiet.stderr, '');
});
