// Tool-call arguments given as a value are written as JSON.stringify writes
// them, on every path: toOpenAIMessage and buildLlmMessagesFromConversation's
// full path (the core) and its fast path (JS). Numbers of every magnitude
// (2e20 is "200000000000000000000", 1e21 "1e+21", 1e-7 "1e-7", -0 "0"),
// nested values, and any Unicode, from generated values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('agent-context');

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const bits = new DataView(new ArrayBuffer(8));
const SPECIAL = [0, -0, 1, -1, 0.1, 2e20, -2e20, 1e21, 1e-6, 1e-7, 1.5e-7, 123456789012345680000, 2 ** 53, 2 ** 53 + 2, 2 ** 64, 5e-324, Number.MAX_VALUE, Number.MIN_VALUE, Number.EPSILON, 1 / 3];

function number(next) {
  switch (Math.floor(next() * 5)) {
    case 0:
      return SPECIAL[Math.floor(next() * SPECIAL.length)];
    case 1: { // any finite double, from random bits
      for (;;) {
        bits.setUint32(0, Math.floor(next() * 2 ** 32));
        bits.setUint32(4, Math.floor(next() * 2 ** 32));
        const v = bits.getFloat64(0);
        if (Number.isFinite(v)) return v;
      }
    }
    case 2: // a power of ten with a few digits, across the whole range
      return Number(`${Math.floor(next() * 1000) / 10}e${Math.floor(next() * 640) - 330}`);
    case 3: // an integer of any size up to 10^25
      return Math.floor(next() * 10 ** Math.floor(next() * 26)) * (next() < 0.5 ? -1 : 1);
    default:
      return (next() - 0.5) * 10 ** Math.floor(next() * 12 - 6);
  }
}

const CHARS = ['a', 'é', '国', '😀', '"', '\\', '\n', '\t', '\u0000', '\u001f', '\u007f', '\u2028', '\u2029', '\ufeff', ' '];
function string(next) {
  let s = '';
  for (let i = Math.floor(next() * 8); i > 0; i--) s += CHARS[Math.floor(next() * CHARS.length)];
  return s;
}

function value(next, depth) {
  const r = next();
  if (depth > 3 || r < 0.45) return number(next);
  if (r < 0.55) return string(next);
  if (r < 0.6) return next() < 0.5;
  if (r < 0.65) return null;
  if (r < 0.8) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  const o = {};
  for (let i = Math.floor(next() * 4); i > 0; i--) o[next() < 0.2 ? String(Math.floor(next() * 10)) : string(next)] = value(next, depth + 1);
  return o;
}

/** A top-level arguments value: an object, an array or a number. */
function args(next) {
  const r = next();
  if (r < 0.3) return number(next);
  if (r < 0.5) return Array.from({ length: 1 + Math.floor(next() * 3) }, () => value(next, 1));
  return { m: number(next), nested: value(next, 1), [string(next)]: value(next, 1) };
}

const call = (a) => ({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: a }] });
const written = (messages) => messages.find((m) => m.tool_calls).tool_calls[0].function.arguments;

test('the numbers of the issue', () => {
  for (const [a, want] of [[{ m: 2e20 }, '{"m":200000000000000000000}'], [{ m: 1e21 }, '{"m":1e+21}'], [{ m: -0 }, '{"m":0}'], [[1e-7, 0.000001], '[1e-7,0.000001]']]) {
    assert.equal(pkg.toOpenAIMessage(call(a)).tool_calls[0].function.arguments, want);
    assert.equal(written(pkg.buildLlmMessagesFromConversation({ mode: 'chat', messages: [call(a)] }).messages), want);
  }
});

test('arguments equal JSON.stringify(arguments) on every path, for generated values', () => {
  const next = rng(20261122);
  let bailedOut = 0;
  for (let round = 0; round < 3000; round++) {
    const a = args(next);
    const want = JSON.stringify(a);
    assert.equal(pkg.toOpenAIMessage(call(a)).tool_calls[0].function.arguments, want, `toOpenAIMessage ${want}`);
    const options = { mode: 'chat', messages: [{ role: 'user', content: 'hi' }, call(a)] };
    assert.equal(written(pkg.buildLlmMessagesFromConversation(options).messages), want, `fast path ${want}`);
    // The full path: a non-enumerable getter that throws makes the fast path
    // leave the call to the core, which reads the input as JSON and never sees it.
    Object.defineProperty(options.messages[0], 'includeInContext', { enumerable: false, get() { bailedOut++; throw new Error('bail out'); } });
    assert.equal(written(pkg.buildLlmMessagesFromConversation(options).messages), want, `full path ${want}`);
  }
  assert.equal(bailedOut, 3000, 'every round also took the full path');
});
