// Family 6: a fresh process that loads the package and makes one call,
// against a bare `node -e 0` started the same way, alternating, in the same
// run. Two figures: the whole process's wall time minus the bare one's (what
// a user of the package waits for in a new process; that process prints
// nothing, as the bare one: creating process.stdout alone costs ~3 ms, and
// the printing script is timed as an info row), and the time from the
// script's first line to the end of the first call, split into phases (a
// second set of processes, timing marks around the module compile and
// instantiation; they cost nothing measurable).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CALL = "assemble('google-gemini', { contextMessages: [{ from: 'a', content: 'hello' }], currentMessage: 'hi', teamTask: null });";
// The time is taken before \`process.stdout\` is touched: creating it (a
// pipe here) costs ~3 ms, which is the script's reporting, not the package.
const script = `
  const t0 = process.hrtime.bigint();
  const { assemble } = require('agent-context');
  ${CALL}
  const ns = Number(process.hrtime.bigint() - t0);
  const u = process.cpuUsage();
  process.stdout.write(JSON.stringify({ ns, cpuUs: u.user + u.system }));
`;
// The process the bar's wall time is taken of: the user's require and first
// call, and nothing else (a bare \`node -e 0\` prints nothing either). The
// script above, which prints its figures, is timed too, as an info row.
const silent = `const { assemble } = require('agent-context');\n${CALL}`;
// The same through the ESM entry (\`import\`), against a bare ES-module
// process started the same way (info: the bar is the require above).
const esmScript = `import { assemble } from 'agent-context';\n${CALL}`;
// CPU time (every thread) of a whole bare process, for the same comparison
// in CPU time: less moved by other processes on the machine than wall time.
const bareCpu = "const u = process.cpuUsage(); process.stdout.write(String(u.user + u.system));";
// The same, with the module compile and instantiation timed (WebAssembly.Module
// and WebAssembly.Instance wrapped; the package calls them once each).
// Also timed: resolving the package name (Node's resolver of the "exports"
// map, which the require then finds cached), reading the .wasm file (the
// fs calls on its path or descriptor wrapped), and what runs after the
// instantiation (the glue's wiring). "Rest" is what is left: reading and
// compiling the JS glue.
const phases = `
  const now = () => process.hrtime.bigint();
  const times = { compile: 0n, instantiate: 0n, read: 0n };
  let instantiated = 0n;
  const { Module, Instance } = WebAssembly;
  WebAssembly.Module = function (bytes) { const t = now(); try { return new Module(bytes); } finally { times.compile += now() - t; } };
  WebAssembly.Instance = function (m, i) { const t = now(); try { return new Instance(m, i); } finally { instantiated = now(); times.instantiate += instantiated - t; } };
  const fs = require('fs');
  const wasmFds = new Set();
  const isWasm = (file) => (typeof file === 'number' ? wasmFds.has(file) : String(file).endsWith('.wasm'));
  for (const name of ['existsSync', 'statSync', 'openSync', 'readSync', 'readFileSync', 'closeSync']) {
    const original = fs[name];
    fs[name] = function (file, ...rest) {
      const t = now();
      try {
        const result = original.call(this, file, ...rest);
        if (name === 'openSync' && isWasm(file)) wasmFds.add(result);
        return result;
      } finally {
        if (isWasm(file)) times.read += now() - t;
        if (name === 'closeSync') wasmFds.delete(file);
      }
    };
  }
  const t0 = now();
  require.resolve('agent-context');
  const tr = now();
  const { assemble } = require('agent-context');
  const t1 = now();
  ${CALL}
  const t2 = now();
  process.stdout.write(JSON.stringify({ load: Number(t1 - t0), resolve: Number(tr - t0), read: Number(times.read), compile: Number(times.compile), instantiate: Number(times.instantiate), wiring: Number(t1 - instantiated), firstCall: Number(t2 - t1) }));
`;
// The floor: the same kind of process requiring a package that does nothing,
// with the same "exports" map (Node's resolver of such a map is part of every
// such package's cold start), from a temporary folder.
const floorDir = mkdtempSync(join(tmpdir(), 'agent-context-floor-'));
const floorPkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
mkdirSync(join(floorDir, 'node_modules/agent-context/pkg/node'), { recursive: true });
mkdirSync(join(floorDir, 'node_modules/agent-context/pkg/web'), { recursive: true });
writeFileSync(join(floorDir, 'node_modules/agent-context/package.json'), JSON.stringify({ name: floorPkg.name, version: floorPkg.version, main: floorPkg.main, exports: floorPkg.exports }));
for (const entry of ['pkg/node/agent_context.js', 'pkg/web/agent_context.js']) {
  writeFileSync(join(floorDir, 'node_modules/agent-context', entry), 'exports.assemble = function assemble() {};\n');
}
writeFileSync(join(floorDir, 'node_modules/agent-context/pkg/node/package.json'), '{"type":"commonjs"}');

function wall(args, cwd = root) {
  const t = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, encoding: 'utf8' });
  const ns = Number(process.hrtime.bigint() - t);
  if (r.status !== 0) throw new Error(r.stderr);
  return { ns, stdout: r.stdout };
}

// 41 rounds: with 25, the paired median of two runs minutes apart on a quiet
// machine still differed by up to 3 ms (8.7 / 12.4 ms).
const runs = smoke ? 2 : 41;
const bare = [];
const full = [];
const inside = [];
const cpuBare = [];
const cpuFull = [];
const split = [];
const fullSilent = [];
const floorSilent = [];
const bareEsm = [];
const esm = [];
const floor = [];
const cpuFloor = [];
// Each round's silent process minus its bare one: on a shared VM whose
// speed drifts over seconds, the median of these paired differences moves
// far less between runs than the difference of the two medians (three runs
// at load 1.7: 12.1 / 11.5 / 12.3 ms against 25.7 / 10.2 / 10.7 ms).
const paired = [];
for (let i = 0; i < runs; i++) {
  bare.push(wall(['-e', '0']).ns);
  fullSilent.push(wall(['-e', silent]).ns);
  paired.push(fullSilent[i] - bare[i]);
  floorSilent.push(wall(['-e', silent], floorDir).ns);
  const f = wall(['-e', script], floorDir);
  floor.push(f.ns);
  cpuFloor.push(JSON.parse(f.stdout).cpuUs * 1000);
  const r = wall(['-e', script]);
  full.push(r.ns);
  const { ns, cpuUs } = JSON.parse(r.stdout);
  inside.push(ns);
  cpuFull.push(cpuUs * 1000);
  cpuBare.push(Number(wall(['-e', bareCpu]).stdout) * 1000);
  split.push(JSON.parse(wall(['-e', phases]).stdout));
  bareEsm.push(wall(['--input-type=module', '-e', '0']).ns);
  esm.push(wall(['--input-type=module', '-e', esmScript]).ns);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
report({ family: 'cold-start', scenario: 'cold start: bare node -e 0 (process wall time)', impl: 'node', medianNs: median(bare), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: node -e load + first call (process wall time)', impl: 'c', medianNs: median(fullSilent), pairedOverBareNs: median(paired), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: node -e load + first call + its figures to stdout (process wall time)', impl: 'c', medianNs: median(full), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: bare node --input-type=module -e 0 (process wall time)', impl: 'node', medianNs: median(bareEsm), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: import + first call (process wall time)', impl: 'c', medianNs: median(esm), iterations: runs });
rmSync(floorDir, { recursive: true, force: true });
// Paired like the bar: the empty package over the round's bare process
// (Node's part of any such package: its first require, the exports map's
// resolver), and the package over the round's empty one (its own part).
report({
  family: 'cold-start', scenario: 'cold start: an empty package with the same exports map (process wall time)', impl: 'floor', medianNs: median(floorSilent),
  pairedOverBareNs: median(floorSilent.map((f, i) => f - bare[i])), packageOverFloorNs: median(fullSilent.map((f, i) => f - floorSilent[i])), iterations: runs,
});
report({ family: 'cold-start', scenario: 'cold start: an empty package with the same exports map (process CPU time)', impl: 'floor', medianNs: median(cpuFloor), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: load + first call', impl: 'c', medianNs: median(inside), iterations: runs });
report({ family: 'cold-start', scenario: 'cold start: process CPU time', impl: 'c', bareNs: median(cpuBare), medianNs: median(cpuFull), iterations: runs });
const load = median(split.map((s) => s.load));
const compile = median(split.map((s) => s.compile));
const instantiate = median(split.map((s) => s.instantiate));
report({
  family: 'cold-start',
  scenario: 'cold start phases',
  impl: 'c',
  resolveNs: median(split.map((s) => s.resolve)),
  readNs: median(split.map((s) => s.read)),
  compileNs: compile,
  instantiateNs: instantiate,
  wiringNs: median(split.map((s) => s.wiring)),
  restOfLoadNs: median(split.map((s) => s.load - s.resolve - s.read - s.compile - s.instantiate - s.wiring)),
  loadNs: load,
  firstCallNs: median(split.map((s) => s.firstCall)),
  iterations: runs,
});
