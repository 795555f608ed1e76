// The built package, required by its name as a CommonJS user would: no init call.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');

const golden = path.join(__dirname, '..', 'golden');
const examples = JSON.parse(fs.readFileSync(path.join(golden, 'worked-examples.json'), 'utf8'));
const quiet = { logger: () => {} };

test('the seed worked examples and the SPEC formats come out byte for byte', () => {
  assert.equal(examples.length, 10);
  for (const ex of examples) {
    const out = pkg.assemble(ex.agentType, ex.input, quiet);
    assert.equal(out.prompt, fs.readFileSync(path.join(golden, ex.golden), 'utf8'), ex.name);
    assert.deepEqual(Object.keys(out), ['prompt', 'systemFlag'], ex.name);
    const flag = ex.goldenSystemFlag && fs.readFileSync(path.join(golden, ex.goldenSystemFlag), 'utf8');
    assert.equal(out.systemFlag, flag, ex.name);
  }
});

test('assembler classes', () => {
  const gemini = new pkg.GeminiContextAssembler();
  assert.equal(gemini.getAgentType(), 'google-gemini');
  assert.deepEqual(gemini.assemble({ contextMessages: [], currentMessage: 'Hello Gemini', teamTask: null, maxBytes: 786432 }), {
    prompt: 'Your task:\nHello Gemini',
    systemFlag: undefined,
  });
  const plain = new pkg.PlainTextAssembler();
  assert.equal(plain.getAgentType(), 'unknown');
  assert.equal(plain.assemble({ contextMessages: [], currentMessage: 'Hello', teamTask: null }).prompt, 'Hello');
});

test('unknown agent types warn through console.warn by default', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const out = pkg.assemble('custom-agent', { contextMessages: [], currentMessage: 'Hi', teamTask: null });
  assert.equal(out.prompt, 'Hi');
  assert.deepEqual(warn.mock.calls.map((c) => c.arguments), [
    ['[ContextManager] Unknown agentType "custom-agent", using PlainTextAssembler'],
  ]);
});

test('errors are AgentContextError with a code and the field path', () => {
  const input = { contextMessages: [{ from: 'a', content: 'x' }, { from: 'b', content: 'y' }, { from: null, content: 'z' }] };
  assert.throws(() => pkg.assemble('google-gemini', input), (err) => {
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'AgentContextError');
    assert.equal(err.code, 'INVALID_INPUT');
    assert.equal(err.message, 'contextMessages[2].from must be a string, got null');
    return true;
  });
  for (const maxBytes of [NaN, -1, Infinity, '5']) {
    assert.throws(() => pkg.assemble('google-gemini', { contextMessages: [], maxBytes }), { code: 'INVALID_INPUT' });
  }
  // The instance is not poisoned by a failed call.
  assert.equal(pkg.assemble('google-gemini', { contextMessages: [], currentMessage: 'ok' }).prompt, 'Your task:\nok');
});

test('the budget counts UTF-8 bytes as Buffer.byteLength does', () => {
  const messages = Array.from({ length: 50 }, (_, i) => ({ from: `u${i}`, content: 'héllo wörld 🎉'.repeat(20) }));
  const input = (maxBytes) => ({ contextMessages: messages, currentMessage: 'now', maxBytes });
  // "Your task:\nnow" is the least that can be sent: 14 bytes.
  assert.throws(() => pkg.assemble('google-gemini', input(13)), (err) => {
    assert.equal(err.code, 'BUDGET_EXCEEDED');
    assert.match(err.message, /maxBytes is 13 but the output needs at least 14 bytes/);
    return true;
  });
  assert.equal(pkg.assemble('google-gemini', input(14)).prompt, 'Your task:\nnow');
  let previous = 0;
  for (const maxBytes of [100, 1000, 5000, 50000]) {
    const { prompt } = pkg.assemble('google-gemini', input(maxBytes));
    const bytes = Buffer.byteLength(prompt);
    assert.ok(bytes <= maxBytes, `${maxBytes}: ${bytes}`);
    assert.ok(bytes >= previous);
    previous = bytes;
    // What is kept is always the newest messages, whole.
    if (prompt.includes('- u')) assert.match(prompt, /- u49: (héllo wörld 🎉){20}\n\nYour task:\nnow$/);
  }
  // Each line is 7 + 20 × 18 = 367 bytes: 21 + 13 × 367 + 12 + 16 = 4820 fits 5000, a 14th would not.
  const lineBytes = Buffer.byteLength(`- u49: ${messages[49].content}`);
  assert.equal(lineBytes, 367);
  const kept = pkg.assemble('google-gemini', input(5000)).prompt;
  assert.equal(Buffer.byteLength(kept), 4820);
  assert.match(kept, /^Conversation so far:\n- u37: /);
});
