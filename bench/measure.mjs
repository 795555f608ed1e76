// Timing: warm up, then time batches until a time budget is spent; report the median.
import { performance } from 'node:perf_hooks';

/** Median nanoseconds per call of `fn`. */
export function measure(fn, { warmup = 20, minMs = 300, maxIterations = 100_000, minIterations = 5, smoke = false } = {}) {
  if (smoke) {
    warmup = Math.min(warmup, 2);
    minMs = 5;
    minIterations = 2;
    maxIterations = 5;
  }
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  const start = performance.now();
  while (samples.length < minIterations || (performance.now() - start < minMs && samples.length < maxIterations)) {
    const t0 = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - t0));
  }
  samples.sort((a, b) => a - b);
  return { medianNs: samples[samples.length >> 1], iterations: samples.length };
}

export const smoke = process.argv.includes('--smoke');

/** Prints a scenario's result for bench/run.mjs. */
export function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** The process's CPU time (every thread) that one call of `fn` takes, in ns. */
function cpuNs(fn) {
  const before = process.cpuUsage();
  fn();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) * 1000;
}

/**
 * Median CPU time of `fn` (process.cpuUsage, user + system, every thread of
 * the process), in nanoseconds: for a synchronous call, what it costs the
 * host whatever else the machine runs.
 */
export function measureCpu(fn, { warmup = 3, minMs = 2000, maxIterations = 60, minIterations = 5, smoke = false } = {}) {
  if (smoke) {
    warmup = Math.min(warmup, 1);
    minMs = 5;
    minIterations = 2;
    maxIterations = 3;
  }
  for (let i = 0; i < warmup; i++) fn();
  const samples = [];
  const start = performance.now();
  while (samples.length < minIterations || (performance.now() - start < minMs && samples.length < maxIterations)) samples.push(cpuNs(fn));
  samples.sort((a, b) => a - b);
  return { medianNs: samples[samples.length >> 1], iterations: samples.length };
}

/**
 * `a` and `b` timed in CPU time by turns, one of each per pair (which goes
 * first alternates), so that a machine slowing down or speeding up meanwhile
 * weighs on both alike: `{ aNs, bNs, ratio, pairs }`, each side's median and
 * the median of the pairs' `b / a`.
 */
export function measureCpuPaired(a, b, { warmup = 3, minMs = 6000, maxPairs = 120, minPairs = 5, smoke = false } = {}) {
  if (smoke) {
    warmup = Math.min(warmup, 1);
    minMs = 5;
    minPairs = 2;
    maxPairs = 3;
  }
  for (let i = 0; i < warmup; i++) (a(), b());
  const [as, bs, ratios] = [[], [], []];
  const start = performance.now();
  while (ratios.length < minPairs || (performance.now() - start < minMs && ratios.length < maxPairs)) {
    const first = ratios.length % 2 === 0;
    const x = first ? cpuNs(a) : 0;
    const y = cpuNs(b);
    const z = first ? x : cpuNs(a);
    as.push(z);
    bs.push(y);
    ratios.push(y / z);
  }
  const median = (list) => list.sort((p, q) => p - q)[list.length >> 1];
  return { aNs: median(as), bNs: median(bs), ratio: median(ratios), pairs: ratios.length };
}
