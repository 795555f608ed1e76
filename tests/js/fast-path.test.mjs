// The JS fast paths (js/fast-path.js) against the full Rust path on random
// input: the same output, or the same error. assembleWithReport always runs
// the full path, so it is the reference for assemble.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as pkg from 'agent-context';

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['a', 'word ', 'é', '日本', '🎉', '\n', ' ', '\t', '\uFEFF', '\u0085', '[SYSTEM]', 'x: y', ''];
function text(next, max) {
  let s = '';
  const n = Math.floor(next() * max);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(next() * PIECES.length)];
  return s;
}
const pick = (next, list) => list[Math.floor(next() * list.length)];

function outcome(fn) {
  try {
    return { ok: fn() };
  } catch (err) {
    return { error: `${err.name} ${err.code} ${err.message}` };
  }
}

function randomInput(next, { wrongTypes }) {
  const count = Math.floor(next() * 40);
  const messages = [];
  for (let i = 0; i < count; i++) {
    const m = { from: text(next, 4), content: next() < 0.1 ? text(next, 400) : text(next, 30) };
    const to = next();
    if (to < 0.3) m.to = text(next, 3);
    else if (to < 0.4) m.to = null;
    else if (to < 0.5) m.to = '';
    if (wrongTypes && next() < 0.02) m[pick(next, ['from', 'to', 'content'])] = pick(next, [1, true, {}, []]);
    messages.push(wrongTypes && next() < 0.01 ? pick(next, ['x', 3, null]) : m);
  }
  const input = {
    contextMessages: messages,
    currentMessage: next() < 0.1 ? text(next, 3000) : text(next, 40),
    teamTask: next() < 0.2 ? null : text(next, 10),
    systemInstruction: next() < 0.3 ? undefined : text(next, 20),
    instructionFileText: next() < 0.1 ? text(next, 2000) : text(next, 20),
  };
  if (wrongTypes && next() < 0.05) input[pick(next, ['currentMessage', 'teamTask', 'systemInstruction'])] = pick(next, [5, [], {}]);
  return input;
}

test('assemble equals the full path at random budgets', () => {
  const next = rng(2026);
  let compared = 0;
  for (let round = 0; round < 600; round++) {
    const input = randomInput(next, { wrongTypes: false });
    const agent = pick(next, ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']);
    const quiet = { logger: () => {} };
    const full = pkg.assembleWithReport(agent, { ...input, maxBytes: Number.MAX_SAFE_INTEGER }, quiet).report.bytesAfter;
    for (const maxBytes of [0, Math.floor(full * next()), Math.floor(full * 0.9), full, full + 1]) {
      const x = { ...input, maxBytes };
      const fast = outcome(() => pkg.assemble(agent, x, quiet));
      const reference = outcome(() => pkg.assembleWithReport(agent, x, quiet).output);
      assert.deepEqual(fast, reference, `${agent} ${maxBytes}`);
      compared++;
    }
  }
  assert.equal(compared, 3000);
});

test('assemble reports wrong types exactly as the full path does', () => {
  const next = rng(7);
  let errors = 0;
  for (let round = 0; round < 400; round++) {
    const input = randomInput(next, { wrongTypes: true });
    const fast = outcome(() => pkg.assemble('claude-code', input, { logger: () => {} }));
    const reference = outcome(() => pkg.assembleWithReport('claude-code', input, { logger: () => {} }).output);
    assert.deepEqual(fast, reference);
    if (fast.error) errors++;
  }
  assert.ok(errors > 20, `only ${errors} inputs were invalid`);
});

test('the classes, buildPrompt and the warning go through the same decisions', () => {
  const next = rng(99);
  const classes = [
    [pkg.ClaudeContextAssembler, 'claude-code'],
    [pkg.CodexContextAssembler, 'openai-codex'],
    [pkg.GeminiContextAssembler, 'google-gemini'],
    [pkg.PlainTextAssembler, 'unknown'],
  ];
  for (let round = 0; round < 100; round++) {
    const input = { ...randomInput(next, { wrongTypes: false }), maxBytes: Math.floor(next() * 2000) };
    for (const [Class, agent] of classes) {
      const warnings = [];
      const viaClass = outcome(() => new Class().assemble(input));
      assert.deepEqual(viaClass, outcome(() => pkg.assembleWithReport(agent, input, { logger: (m) => warnings.push(m) }).output));
      const prompt = outcome(() => pkg.buildPrompt({
        agentType: agent, systemInstructionText: input.systemInstruction, instructionFileText: input.instructionFileText,
        contextMessages: input.contextMessages, message: input.currentMessage, teamTask: input.teamTask, maxBytes: input.maxBytes,
      }, { logger: () => {} }));
      assert.deepEqual(prompt, viaClass);
    }
  }
  const seen = [];
  pkg.assemble('my-agent', { contextMessages: [], currentMessage: 'x' }, { logger: (m, level) => seen.push([level, m]) });
  pkg.assemble('my-agent', { contextMessages: [], currentMessage: 'x' }, { logger: { warn: (m) => seen.push(['object', m]) } });
  assert.deepEqual(seen, [
    ['warn', '[ContextManager] Unknown agentType "my-agent", using PlainTextAssembler'],
    ['object', '[ContextManager] Unknown agentType "my-agent", using PlainTextAssembler'],
  ]);
});

test('lone surrogates: the same bytes on the wire, whichever path', () => {
  const input = { contextMessages: [{ from: 'a', content: 'x\uD800y' }], currentMessage: 'm', maxBytes: 1000 };
  const fast = pkg.assemble('custom-agent', input, { logger: () => {} }).prompt;
  const full = pkg.assembleWithReport('custom-agent', input, { logger: () => {} }).output.prompt;
  assert.deepEqual(Buffer.from(fast, 'utf8'), Buffer.from(full, 'utf8'));
  assert.equal(Buffer.byteLength(fast), 11); // 'a: x' + U+FFFD (3) + 'y' + '\n\n' + 'm'
});

test('buildLlmMessagesFromConversation: fast and full paths agree', () => {
  const next = rng(5);
  for (let round = 0; round < 300; round++) {
    const messages = [];
    const n = Math.floor(next() * 30);
    for (let i = 0; i < n; i++) {
      const role = pick(next, ['user', 'assistant', 'tool', 'system']);
      const m = { role, content: next() < 0.2 && role === 'assistant' ? null : text(next, 20), id: `m${i}`, extra: { nested: [1, 2] } };
      if (role === 'assistant' && next() < 0.4) m[pick(next, ['toolCalls', 'tool_calls'])] = [{ id: `c${i}`, name: 'f', arguments: next() < 0.5 ? { a: text(next, 5) } : '{"b":1}' }];
      if (role === 'tool') m[pick(next, ['toolCallId', 'tool_call_id'])] = `c${i}`;
      if (next() < 0.1) m.includeInContext = false;
      if (next() < 0.1) m.name = text(next, 4);
      messages.push(m);
    }
    const options = { mode: pick(next, ['chat', 'agent', 'run']), messages, settings: {} };
    if (next() < 0.5) options.settings.maxMessages = Math.floor(next() * 20);
    if (next() < 0.3) options.settings.includeSystemPrompt = false;
    const fast = outcome(() => pkg.buildLlmMessagesFromConversation(options));
    // The same input, sent down the full path: a non-enumerable getter that
    // throws is read (and bails out) on the fast path only; the full path
    // reads the input as JSON, which does not see it.
    const forced = JSON.parse(JSON.stringify(options));
    forced.messages.unshift({ role: 'user', content: 'first' });
    let bailedOut = 0;
    Object.defineProperty(forced.messages[0], 'includeInContext', { enumerable: false, get() { bailedOut++; throw new Error('bail out'); } });
    const plain = JSON.parse(JSON.stringify(options));
    plain.messages.unshift({ role: 'user', content: 'first' });
    const viaFull = outcome(() => pkg.buildLlmMessagesFromConversation(forced));
    assert.equal(bailedOut, 1, 'the fast path read the getter once, then left it to the full path');
    assert.deepEqual(outcome(() => pkg.buildLlmMessagesFromConversation(plain)), viaFull);
    assert.ok(fast.ok || fast.error);
  }
});
