// Long-running use: mixed calls over every API in one process. WebAssembly
// memory must not grow after warm-up and the JS heap must stay bounded.
//   node --expose-gc tests/soak/soak.mjs [calls]     (default 1 000 000)
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

const pkg = createRequire(import.meta.url)('agent-context');
const calls = Number(process.argv[2] ?? 1_000_000);
const quiet = { logger: () => {} };

const history = Array.from({ length: 300 }, (_, i) => ({ from: `u${i % 5}`, to: i % 3 ? 'carol' : undefined, content: `message ${i} é🎉 `.repeat(1 + (i % 9)) }));
const input = { contextMessages: history, currentMessage: 'What now?', teamTask: 'Ship', systemInstruction: 'You are Carol', instructionFileText: 'Be brief', maxBytes: 8000 };
const tight = { ...input, currentMessage: 'm'.repeat(5000), maxBytes: 3000 };
const conversation = { mode: 'run', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'f', arguments: { a: 1 } }] }, { role: 'tool', toolCallId: 'c', content: 'ok' }],
  runContext: { packageName: 'p', workflowName: 'w', currentStep: { id: 's', name: 'n', instruction: 'i' } } };
const stream = `${JSON.stringify({ type: 'init', session_id: 's' })}\n${JSON.stringify({ type: 'message', role: 'assistant', content: 'hello é', delta: true })}\n${JSON.stringify({ type: 'result', status: 'success' })}\n`;
const bytes = Buffer.from(stream);

const work = [
  () => pkg.assemble('claude-code', input, quiet).prompt.length,
  () => pkg.assemble('openai-codex', tight, quiet).prompt.length,
  () => pkg.assembleWithReport('google-gemini', input, quiet).report.bytesAfter,
  () => pkg.buildPrompt({ agentType: 'x', contextMessages: history.slice(0, 10), message: 'm' }, quiet).prompt.length,
  () => pkg.selectContextMessages(history, { recipient: 'carol' }).length,
  () => pkg.buildLlmMessagesFromConversation(conversation).messages.length,
  () => pkg.parseAgentOutput('google-gemini', stream).text.length,
  () => {
    const parser = new pkg.AgentOutputParser('google-gemini');
    parser.push(bytes.subarray(0, 20));
    parser.push(bytes.subarray(20));
    return parser.finish().text.length;
  },
  () => pkg.buildCliInvocation('claude-code', { prompt: 'hi', systemFlag: 'sys' }, {}).args.length,
  () => {
    try {
      pkg.assemble('x', { contextMessages: [{ from: 1 }] });
    } catch (e) {
      return e.code === 'INVALID_INPUT' ? 1 : 0;
    }
    return 0;
  },
];

// As in a real host, the event loop turns between samples: objects the
// caller never free()d are reclaimed by their finalizers, which run then.
const sample = async () => {
  globalThis.gc();
  await new Promise((resolve) => setImmediate(resolve));
  globalThis.gc();
  return { wasm: pkg.__wasmMemoryBytes(), heap: process.memoryUsage().heapUsed };
};
const start = await sample();
const warmup = Math.max(1, Math.floor(calls / 10));
let afterWarmup;
let peakHeap = 0;
let checksum = 0;
const t0 = process.hrtime.bigint();
for (let i = 1; i <= calls; i++) {
  checksum += work[i % work.length]();
  if (i === warmup) afterWarmup = await sample();
  if (i > warmup && i % warmup === 0) peakHeap = Math.max(peakHeap, (await sample()).heap);
}
const end = await sample();
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
const mib = (n) => (n / 1048576).toFixed(1);
console.log(`soak: ${calls} calls in ${seconds.toFixed(1)} s; wasm memory ${mib(start.wasm)} → ${mib(afterWarmup.wasm)} (after warm-up) → ${mib(end.wasm)} MiB; JS heap ${mib(start.heap)} → ${mib(afterWarmup.heap)} → ${mib(end.heap)} MiB (peak ${mib(peakHeap)}); checksum ${checksum}`);
assert.equal(end.wasm, afterWarmup.wasm, 'WebAssembly memory grew after warm-up');
assert.ok(end.heap - afterWarmup.heap < 8 * 1048576, 'the JS heap grew after warm-up');
