// The JS fast paths (js/web/fast-path.js) against the full Rust path on random
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

/** What the full path did: 'error', 'cut' (message or file), 'dropped' (messages only) or 'whole'. */
function kind(withReport) {
  if (withReport.error) return 'error';
  const r = withReport.ok.report;
  if (r.messageBytesRemoved > 0 || r.instructionFileBytesRemoved > 0) return 'cut';
  return r.messagesDropped > 0 ? 'dropped' : 'whole';
}

test('assemble equals the full path at random budgets', () => {
  const next = rng(2026);
  const kinds = { error: 0, cut: 0, dropped: 0, whole: 0 };
  for (let round = 0; round < 600; round++) {
    const input = randomInput(next, { wrongTypes: false });
    const agent = pick(next, ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']);
    const quiet = { logger: () => {} };
    const full = pkg.assembleWithReport(agent, { ...input, maxBytes: Number.MAX_SAFE_INTEGER }, quiet).report.bytesAfter;
    for (const maxBytes of [0, Math.floor(full * next()), Math.floor(full * 0.9), full, full + 1]) {
      const x = { ...input, maxBytes };
      const fast = outcome(() => pkg.assemble(agent, x, quiet));
      const withReport = outcome(() => pkg.assembleWithReport(agent, x, quiet));
      const reference = withReport.error ? withReport : { ok: withReport.ok.output };
      assert.deepEqual(fast, reference, `${agent} ${maxBytes}`);
      kinds[kind(withReport)]++;
    }
  }
  // Every branch of the budget was compared, not only the easy one.
  for (const [name, count] of Object.entries(kinds)) assert.ok(count >= 80, `only ${count} comparisons of kind ${name}: ${JSON.stringify(kinds)}`);
});

// Which path made an output: `assemble` tries the fast path first and reads
// each field once; when it falls back, the full path reads them again.
function countingReads(input) {
  const counted = { ...input };
  let reads = 0;
  const message = input.currentMessage;
  Object.defineProperty(counted, 'currentMessage', { enumerable: true, get: () => (reads++, message) });
  return { input: counted, reads: () => reads };
}

test('cacheStable: the fast path gives the output of the full path, and takes every case it can', () => {
  const next = rng(1914);
  const kinds = { error: 0, cut: 0, dropped: 0, whole: 0 };
  let forCache = 0;
  let fastTaken = 0;
  for (let round = 0; round < 500; round++) {
    const input = randomInput(next, { wrongTypes: false });
    // Longer histories, so that blocks of 16 are dropped as well.
    input.contextMessages = [...randomInput(next, { wrongTypes: false }).contextMessages, ...input.contextMessages];
    const newest = input.contextMessages.at(-1);
    if (newest) newest.content += '\uD800';
    const agent = pick(next, ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']);
    const cacheBlock = pick(next, [undefined, 1, 2, 3, 5, 16, 16, 40, 1000]);
    const options = { logger: () => {}, cacheStable: next() < 0.9, cacheBlock };
    const block = cacheBlock ?? 16;
    const full = pkg.assembleWithReport(agent, { ...input, maxBytes: Number.MAX_SAFE_INTEGER }, options).report.bytesAfter;
    for (const maxBytes of [0, Math.floor(full * next()), Math.floor(full * 0.5), Math.floor(full * 0.9), full]) {
      const x = { ...input, maxBytes };
      const counted = countingReads(x);
      const fast = outcome(() => pkg.assemble(agent, counted.input, options));
      const withReport = outcome(() => pkg.assembleWithReport(agent, x, options));
      const reference = withReport.error ? withReport : { ok: withReport.ok.output };
      // The same string, the newest message's lone surrogate as U+FFFD on both paths.
      assert.deepEqual(fast, reference, `${agent} ${maxBytes} ${JSON.stringify(options)}`);
      const k = kind(withReport);
      kinds[k]++;
      if (withReport.ok) {
        const r = withReport.ok.report;
        assert.ok(r.messagesDroppedForCache < (options.cacheStable ? block : 1), JSON.stringify(r));
        if (options.cacheStable && r.messagesDropped > 0) {
          assert.ok(r.messagesDropped % block === 0 || r.messagesKept === 0, JSON.stringify(r));
        }
        if (r.messagesDroppedForCache > 0) forCache++;
        // Every case that needs no cut is the fast path's (read the message once).
        if ((k === 'whole' || k === 'dropped') && r.messagesKept > 0) {
          assert.equal(counted.reads(), 1, `the full path was taken: ${agent} ${maxBytes} ${JSON.stringify(options)}`);
          fastTaken++;
        }
      }
    }
  }
  for (const [name, count] of Object.entries(kinds)) assert.ok(count >= 60, `only ${count} comparisons of kind ${name}: ${JSON.stringify(kinds)}`);
  assert.ok(forCache >= 200, `only ${forCache} calls dropped messages for the cache`);
  assert.ok(fastTaken >= 500, `only ${fastTaken} calls went through the fast path`);
});

test('cacheStable and cacheBlock: a bad value is INVALID_INPUT naming the field, on every path', () => {
  const input = { contextMessages: [{ from: 'a', content: 'hello' }], currentMessage: 'm', maxBytes: 1000 };
  const cases = [
    [{ cacheStable: true, cacheBlock: 0 }, 'options.cacheBlock must be a positive integer, got 0'],
    [{ cacheStable: true, cacheBlock: -16 }, 'options.cacheBlock must be a positive integer, got -16'],
    [{ cacheStable: true, cacheBlock: 1.5 }, 'options.cacheBlock must be a positive integer, got 1.5'],
    [{ cacheStable: true, cacheBlock: NaN }, 'options.cacheBlock must be a positive integer, got NaN'],
    [{ cacheStable: true, cacheBlock: Infinity }, 'options.cacheBlock must be a positive integer, got Infinity'],
    [{ cacheStable: true, cacheBlock: '16' }, 'options.cacheBlock must be a positive integer, got a string'],
    [{ cacheStable: false, cacheBlock: 0 }, 'options.cacheBlock must be a positive integer, got 0'],
    [{ cacheBlock: [] }, 'options.cacheBlock must be a positive integer, got an array'],
    [{ cacheStable: 'yes' }, 'options.cacheStable must be a boolean, got a string'],
    [{ cacheStable: 1 }, 'options.cacheStable must be a boolean, got a number'],
  ];
  for (const [options, message] of cases) {
    for (const call of [
      () => pkg.assemble('openai-codex', input, options),
      () => pkg.assembleWithReport('openai-codex', input, options),
      () => pkg.buildPrompt({ agentType: 'openai-codex', message: 'm', contextMessages: [] }, options),
    ]) {
      assert.throws(call, (err) => err.name === 'AgentContextError' && err.code === 'INVALID_INPUT' && err.message === message, JSON.stringify(options));
    }
  }
  // The ContextManager's options reach its built-in assemblers too.
  const history = Array.from({ length: 50 }, (_, i) => ({ from: `u${i}`, content: 'x'.repeat(100) }));
  const long = { contextMessages: history, currentMessage: 'hi', teamTask: 't', maxBytes: 3000 };
  const stable = pkg.assembleWithReport('openai-codex', long, { cacheStable: true, cacheBlock: 8 });
  assert.ok(stable.report.messagesDroppedForCache > 0);
  assert.equal(stable.report.messagesDropped % 8, 0);
  assert.deepEqual(new pkg.ContextManager({ cacheStable: true, cacheBlock: 8 }).assemblePrompt('openai-codex', long), stable.output);
  assert.notDeepEqual(new pkg.ContextManager().assemblePrompt('openai-codex', long), stable.output);
  // null and undefined are "not given", as for the other options.
  assert.deepEqual(pkg.assemble('openai-codex', input, { cacheStable: null, cacheBlock: null }), pkg.assemble('openai-codex', input));
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

test('lone surrogates: U+FFFD in the output, whichever path', () => {
  const input = { contextMessages: [{ from: 'a', content: 'x\uD800y' }], currentMessage: 'm', maxBytes: 1000 };
  const counted = countingReads(input);
  const fast = pkg.assemble('custom-agent', counted.input, { logger: () => {} }).prompt;
  assert.equal(counted.reads(), 1); // the fast path made it
  const full = pkg.assembleWithReport('custom-agent', input, { logger: () => {} }).output.prompt;
  assert.equal(fast, 'a: x\uFFFDy\n\nm');
  assert.equal(full, fast);
  // In the instructions (Claude Code's system flag), the message and the team task too.
  const lone = { contextMessages: [], currentMessage: '\uDC00m', teamTask: 't\uD800', systemInstruction: 's\uDBFF', maxBytes: 1000 };
  const out = pkg.assemble('claude-code', lone);
  assert.deepEqual(out, pkg.assembleWithReport('claude-code', lone).output);
  assert.deepEqual(out, { prompt: '[TEAM_TASK]\nt\uFFFD\n\n[MESSAGE]\n\uFFFDm', systemFlag: 's\uFFFD' });
  // A pair is kept whole.
  assert.equal(pkg.assemble('openai-codex', { contextMessages: [], currentMessage: '\uD83C\uDF89' }).prompt, '[MESSAGE]\n\uD83C\uDF89');
});

test('lone surrogates: what was found well formed counts only while the strings stay the same', () => {
  const quiet = { logger: () => {} };
  const m = { from: 'a', to: 'b', content: 'x\uD83C\uDF89y' };
  const input = { contextMessages: [{ from: 'c', content: 'older' }, m], currentMessage: 'm', systemInstruction: 's', teamTask: 't', maxBytes: 1000 };
  const same = (agent) => {
    const counted = countingReads(input);
    const fast = pkg.assemble(agent, counted.input, quiet);
    assert.equal(counted.reads(), 1); // the fast path made it
    assert.deepEqual(fast, pkg.assembleWithReport(agent, input, quiet).output);
    return fast;
  };
  for (const agent of ['claude-code', 'google-gemini']) {
    assert.ok(same(agent).prompt.includes('x\uD83C\uDF89y'));
    // The same message object, other strings: each is checked again.
    m.content = 'x\uD800y';
    assert.ok(same(agent).prompt.includes('x\uFFFDy'));
    m.content = 'x\uD83C\uDF89y';
    m.to = 'b\uDC00';
    assert.equal(same(agent).prompt.includes('b\uFFFD'), agent === 'claude-code'); // Gemini's lines show no recipient
    m.to = 'b';
    m.from = '\uD800a';
    assert.ok(same(agent).prompt.includes('\uFFFDa'));
    m.from = 'a';
    // The other fields, after the same field held a well-formed string.
    for (const key of ['currentMessage', 'systemInstruction', 'teamTask']) {
      const before = input[key];
      input[key] = `${before}\uDBFF`;
      const out = same(agent);
      assert.ok(`${out.prompt}${out.systemFlag ?? ''}`.includes(`${before}\uFFFD`), key);
      input[key] = before;
    }
  }
});

test('lone surrogates: a history that grows between calls, new objects of the same strings', () => {
  const quiet = { logger: () => {} };
  const history = [{ from: 'a', content: 'one \uD83C\uDF89' }, { from: 'b', to: 'a', content: 'two' }];
  const call = () => {
    const input = { contextMessages: history.map((m) => ({ ...m })), currentMessage: 'now', maxBytes: 1000 };
    const fast = pkg.assemble('openai-codex', input, quiet);
    assert.deepEqual(fast, pkg.assembleWithReport('openai-codex', input, quiet).output);
    return fast.prompt;
  };
  assert.ok(call().includes('- a: one \uD83C\uDF89\n- b -> a: two\n'));
  history.push({ from: 'd', content: 'four' }, { from: 'e', content: 'five' });
  assert.ok(call().includes('- b -> a: two\n- d: four\n- e: five\n'));
  history[1] = { from: 'b', to: 'a\uDC00', content: 'two' }; // an older message, another string
  history[3] = { from: 'e', content: 'five' }; // an equal one
  history.push({ from: 'f', content: 'six' });
  assert.ok(call().includes('- a: one \uD83C\uDF89\n- b -> a\uFFFD: two\n- d: four\n- e: five\n- f: six\n'));
  history.push({ from: 'c', content: 'three \uD800' });
  assert.ok(call().includes('- b -> a\uFFFD: two\n- d: four\n- e: five\n- f: six\n- c: three \uFFFD\n'));
  assert.ok(call().includes('- c: three \uFFFD\n'));
});

test('a getter that assembles while a message is read: the outer call is still right', () => {
  const quiet = { logger: () => {} };
  const inner = { contextMessages: Array.from({ length: 70 }, (_, i) => ({ from: `i${i}`, content: 'inner '.repeat(i) })), currentMessage: 'q' };
  let nested = 0;
  const tricky = {
    get from() {
      nested++;
      pkg.assemble('openai-codex', inner, quiet);
      return 'o';
    },
    content: 'outer',
  };
  const input = { contextMessages: [{ from: 'a', content: 'first' }, tricky, { from: 'b', content: 'last' }], currentMessage: 'm', maxBytes: 60 };
  const out = pkg.assemble('claude-code', input, quiet);
  assert.ok(nested >= 1);
  assert.deepEqual(out, { prompt: '[CONTEXT]\n- a: first\n- o: outer\n- b: last\n\n[MESSAGE]\nm', systemFlag: undefined });
});

test('buildLlmMessagesFromConversation: fast and full paths agree', () => {
  const next = rng(5);
  let fastOk = 0;
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
    // The very same input down the full path: a throwing getter for a
    // setting that is not given, which the full path (reading JSON) does not see.
    const unset = ['includeSystemPrompt', 'maxMessages'].find((k) => !(k in options.settings));
    if (unset === undefined) continue;
    const same = JSON.parse(JSON.stringify(options));
    let sameBailedOut = 0;
    Object.defineProperty(same.settings, unset, {
      enumerable: false,
      get() {
        sameBailedOut++;
        throw new Error('bail out');
      },
    });
    const sameViaFull = outcome(() => pkg.buildLlmMessagesFromConversation(same));
    assert.equal(sameBailedOut, 1);
    assert.deepEqual(fast, sameViaFull);
    if (fast.ok) fastOk++;
  }
  assert.ok(fastOk >= 200, `only ${fastOk} of 300 conversations were built and compared`);
});

test('the unknown-agent warning crosses from the core intact, whatever the agent type', () => {
  const input = { contextMessages: [{ from: 'a', content: 'hello' }], currentMessage: 'm' };
  for (const agent of ['my "agent"', 'back\\slash', 'line\nbreak\ttab\u0001\u001f', 'é日本🎉', 'lone \uD800 surrogate', '']) {
    const fast = [];
    const full = [];
    const out = pkg.assemble(agent, input, { logger: (m) => fast.push(m) });
    pkg.assembleWithReport(agent, input, { logger: (m) => full.push(m) });
    assert.equal(fast.length, 1, JSON.stringify(agent));
    assert.deepEqual(fast, full);
    assert.equal(out.prompt, 'a: hello\n\nm');
  }
  // A surrogate-free one is quoted as given.
  const seen = [];
  pkg.assemble('line\n"x"', input, { logger: (m) => seen.push(m) });
  assert.deepEqual(seen, ['[ContextManager] Unknown agentType "line\n"x"", using PlainTextAssembler']);
});
