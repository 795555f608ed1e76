// Family 7: many calls with 100 KB inputs; WebAssembly memory and the JS heap
// are sampled and must stop growing after warm-up. Run with --expose-gc.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { assemblerInput } from '../data.mjs';
import { report, smoke } from '../measure.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const calls = smoke ? 2000 : 100_000;
const inputs = [assemblerInput(210, 500, 786432, 1), assemblerInput(210, 500, 60_000, 2)];
assert.ok(Buffer.byteLength(JSON.stringify(inputs[0])) > 100_000);
const sample = () => {
  globalThis.gc();
  return { wasm: pkg.__wasmMemoryBytes(), heap: process.memoryUsage().heapUsed };
};
const warmup = Math.floor(calls / 10);
let afterWarmup;
const samples = [];
for (let i = 1; i <= calls; i++) {
  const out = pkg.assemble(i % 3 ? 'claude-code' : 'google-gemini', inputs[i & 1]);
  if (out.prompt.length === 0) throw new Error('empty prompt');
  if (i === warmup) afterWarmup = sample();
  if (i % Math.floor(calls / 10) === 0) samples.push(sample());
}
const end = sample();
report({
  family: 'memory', scenario: `memory: ${calls} calls, 100 KB inputs`, impl: 'c',
  wasmAfterWarmup: afterWarmup.wasm, wasmEnd: end.wasm, heapAfterWarmup: afterWarmup.heap, heapEnd: end.heap,
  wasmSamples: samples.map((s) => s.wasm), heapSamples: samples.map((s) => s.heap),
});
