// Generated inputs with a fixed seed: multi-byte text (accents, CJK, emoji) mixed with ASCII.

/** mulberry32: a small deterministic PRNG. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'the', 'layout', 'dashboard', 'chart', 'review', 'deploy', 'token', 'budget', 'agent', 'prompt',
  'café', 'naïve', 'résumé', 'Größe', 'señal', '日本語', '設計', 'データ', '🎉', '🚀', 'ok', 'fix',
];
const NAMES = ['kailai', 'max', 'carol', 'bob', 'zoë', '李雷'];

/** A sentence of about `bytes` UTF-8 bytes. */
export function text(next, bytes) {
  const out = [];
  let size = 0;
  while (size < bytes) {
    const w = WORDS[Math.floor(next() * WORDS.length)];
    out.push(w);
    size += Buffer.byteLength(w) + 1;
  }
  return out.join(' ');
}

/** `count` context messages of about `bytes` each. */
export function messages(count, bytes, seed = 7) {
  const next = rng(seed);
  const list = new Array(count);
  for (let i = 0; i < count; i++) {
    const from = NAMES[Math.floor(next() * NAMES.length)];
    const to = next() < 0.2 ? undefined : NAMES[Math.floor(next() * NAMES.length)];
    list[i] = to === undefined ? { from, content: text(next, bytes) } : { from, to, content: text(next, bytes) };
  }
  return list;
}

/** An AssemblerInput with `count` messages of about `bytes` each. */
export function assemblerInput(count, bytes, maxBytes = 786432, seed = 7) {
  const next = rng(seed + 1);
  return {
    contextMessages: messages(count, bytes, seed),
    currentMessage: text(next, 300),
    teamTask: text(next, 120),
    systemInstruction: `You are Carol, a UI/UX designer. ${text(next, 200)}`,
    instructionFileText: text(next, 600),
    maxBytes,
  };
}

/** A conversation of `count` messages with tool calls, for the context builder. */
export function conversation(count, seed = 11) {
  const next = rng(seed);
  const out = [];
  let call = 0;
  while (out.length < count) {
    out.push({ id: `m${out.length}`, role: 'user', content: text(next, 120), createdAt: '2026-11-22T10:00:00Z' });
    if (next() < 0.5) {
      const id = `call_${call++}`;
      out.push({ id: `m${out.length}`, role: 'assistant', content: null, toolCalls: [{ id, name: 'read_file', arguments: { path: `docs/${id}.md` } }] });
      out.push({ id: `m${out.length}`, role: 'tool', toolCallId: id, name: 'read_file', content: text(next, 300) });
    }
    out.push({ id: `m${out.length}`, role: 'assistant', content: text(next, 200), includeInContext: next() < 0.95 });
  }
  return out.slice(0, count);
}
