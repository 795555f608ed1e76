// Family 6: a fresh process that loads the package and makes one call,
// against a bare `node -e 0` started the same way, alternating, in the same
// run. Two figures: the whole process's wall time minus the bare one's (what
// a user of the package waits for in a new process), and the time from the
// script's first line to the end of the first call, split into phases (a
// second set of processes, timing marks around the module compile and
// instantiation; they cost nothing measurable).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CALL = "assemble('google-gemini', { contextMessages: [{ from: 'a', content: 'hello' }], currentMessage: 'hi', teamTask: null });";
const script = `
  const t0 = process.hrtime.bigint();
  const { assemble } = require('agent-context');
  ${CALL}
  const u = process.cpuUsage();
  process.stdout.write(JSON.stringify({ ns: Number(process.hrtime.bigint() - t0), cpuUs: u.user + u.system }));
`;
// CPU time (every thread) of a whole bare process, for the same comparison
// in CPU time: less moved by other processes on the machine than wall time.
const bareCpu = "const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system));";
// The same, with the module compile and instantiation timed (WebAssembly.Module
// and WebAssembly.Instance wrapped; the package calls them once each).
const phases = `
  const now = () => process.hrtime.bigint();
  const times = { compile: 0n, instantiate: 0n };
  const { Module, Instance } = WebAssembly;
  WebAssembly.Module = function (bytes) { const t = now(); try { return new Module(bytes); } finally { times.compile += now() - t; } };
  WebAssembly.Instance = function (m, i) { const t = now(); try { return new Instance(m, i); } finally { times.instantiate += now() - t; } };
  const t0 = now();
  const { assemble } = require('agent-context');
  const t1 = now();
  ${CALL}
  const t2 = now();
  process.stdout.write(JSON.stringify({ load: Number(t1 - t0), compile: Number(times.compile), instantiate: Number(times.instantiate), firstCall: Number(t2 - t1) }));
`;

function wall(args) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' });
  const ns = Number(process.hrtime.bigint() - t);
  if (r.status !== 0) throw new Error(r.stderr);
  return { ns, stdout: r.stdout };
}

const runs = smoke ? 2 : 25;
const bare = [];
const full = [];
const inside = [];
const cpuBare = [];
const cpuFull = [];
const split = [];
for (let i = 0; i < runs; i++) {
  bare.push(wall(['-e', '0']).ns);
  const r = wall(['-e', script]);
  full.push(r.ns);
  const { ns, cpuUs } = JSON.parse(r.stdout);
  inside.push(ns);
  cpuFull.push(cpuUs * 1000);
  cpuBare.push(Number(wall(['-e', bareCpu]).stdout) * 1000);
  split.push(JSON.parse(wall(['-e', phases]).stdout));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
report({ family: 'cold-start', scenario: 'cold start: bare node -e 0 (process wall time)', impl: 'node', medianNs: median(bare), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: node -e load + first call (process wall time)', impl: 'c', medianNs: median(full), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: load + first call', impl: 'c', medianNs: median(inside), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: process CPU time', impl: 'c', bareNs: median(cpuBare), medianNs: median(cpuFull), iterations: runs });
const load = median(split.map((s) => s.load));
const compile = median(split.map((s) => s.compile));
const instantiate = median(split.map((s) => s.instantiate));
report({
  family: 'cold-start',
  scenario: 'cold start phases',
  impl: 'c',
  compileNs: compile,
  instantiateNs: instantiate,
  restOfLoadNs: median(split.map((s) => s.load - s.compile - s.instantiate)),
  loadNs: load,
  firstCallNs: median(split.map((s) => s.firstCall)),
  iterations: runs,
});
