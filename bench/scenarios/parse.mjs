// Family 5: a 10 MB Gemini stream-json, parsed whole and in 64 KiB chunks.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { rng, text } from '../data.mjs';
import { measure, report, smoke } from '../measure.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const next = rng(5);
const lines = [
  JSON.stringify({ type: 'init', timestamp: '2026-11-22T10:00:00.000Z', session_id: 'bench-session', model: 'gemini-3-pro-preview' }),
  JSON.stringify({ type: 'message', timestamp: '2026-11-22T10:00:00.001Z', role: 'user', content: text(next, 20_000) }),
];
let size = lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
let expectedText = '';
let tools = 0;
const target = (smoke ? 1 : 10) * 1024 * 1024;
while (size < target) {
  let line;
  if (next() < 0.01) {
    const id = `tool_${tools++}`;
    line = JSON.stringify({ type: 'tool_use', timestamp: '2026-11-22T10:00:01.000Z', tool_name: 'read_file', tool_id: id, parameters: { file_path: `docs/${id}.md` } });
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
    line = JSON.stringify({ type: 'tool_result', timestamp: '2026-11-22T10:00:01.100Z', tool_id: id, status: 'success', output: text(next, 200) });
  } else {
    const delta = `${text(next, 150)} `;
    expectedText += delta;
    line = JSON.stringify({ type: 'message', timestamp: '2026-11-22T10:00:01.000Z', role: 'assistant', content: delta, delta: true });
  }
  lines.push(line);
  size += Buffer.byteLength(line) + 1;
}
lines.push(JSON.stringify({ type: 'result', timestamp: '2026-11-22T10:00:09.000Z', status: 'success', stats: { total_tokens: 1, input_tokens: 1, output_tokens: 1 } }));
const stream = `${lines.join('\n')}\n`;
const bytes = Buffer.byteLength(stream);
const buffer = Buffer.from(stream, 'utf8');
const chunks = [];
for (let at = 0; at < buffer.length; at += 64 * 1024) chunks.push(buffer.subarray(at, at + 64 * 1024));

const whole = pkg.parseAgentOutput('google-gemini', stream);
assert.equal(whole.status, 'success');
assert.equal(whole.sessionId, 'bench-session');
assert.equal(whole.toolUses.length, tools);
const chunked = () => {
  const parser = new pkg.AgentOutputParser('google-gemini');
  for (const chunk of chunks) parser.push(chunk);
  const reply = parser.finish();
  parser.free();
  return reply;
};
assert.deepEqual(chunked(), whole);
// Deltas interrupted by a tool call start a new paragraph; the words are all there.
assert.equal(whole.text.replace(/\s+/g, ' ').trim(), expectedText.replace(/\s+/g, ' ').trim());

const options = { smoke, warmup: 3, minMs: 2000, maxIterations: 50 };
report({ family: 'parse', scenario: 'parse 10 MB Gemini stream, whole', impl: 'c', bytes, ...measure(() => pkg.parseAgentOutput('google-gemini', stream), options) });
report({ family: 'parse', scenario: 'parse 10 MB Gemini stream, 64 KiB chunks', impl: 'c', bytes, ...measure(chunked, options) });
