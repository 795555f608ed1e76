// npm run bench [-- --smoke] [-- --only typical,heavy]: every scenario family
// in its own Node process, then one table of targets (met or not), also
// written to bench/results.json. --smoke runs each family briefly, to keep
// the benchmark working; its timings mean nothing. --only runs the families
// named (and the table shows their targets and the module sizes); such a run
// writes no results.json.
import { spawnSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const smoke = process.argv.includes('--smoke');
const onlyAt = process.argv.indexOf('--only');
const only = onlyAt < 0 ? null : (process.argv[onlyAt + 1] ?? '').split(',').filter(Boolean);
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const FAMILIES = [
  ['typical', 'scenarios/assemble.mjs', ['typical']],
  ['heavy', 'scenarios/assemble.mjs', ['heavy'], ['--expose-gc']],
  ['seed-style', 'scenarios/assemble.mjs', ['seed-style']],
  ['langchain', 'scenarios/assemble.mjs', ['langchain']],
  ['builder', 'scenarios/builder.mjs', []],
  ['parse', 'scenarios/parse.mjs', []],
  ['acp-parse', 'scenarios/acp-parse.mjs', []],
  ['cold-start', 'scenarios/cold-start.mjs', []],
  ['cache', 'scenarios/cache.mjs', []],
  ['memory', 'scenarios/memory.mjs', [], ['--expose-gc']],
  ['run-agent', 'scenarios/run-agent.mjs', []],
  ['session', 'scenarios/session.mjs', []],
  ['turn-two', 'scenarios/turn-two.mjs', []],
  ['team', 'scenarios/team.mjs', []],
  ['remote', 'scenarios/remote.mjs', []],
  ['record', 'scenarios/record.mjs', []],
  ['handoff', 'scenarios/handoff.mjs', []],
  ['store', 'scenarios/store.mjs', []],
  ['serve', 'scenarios/serve.mjs', []],
];

const unknown = (only ?? []).filter((name) => !FAMILIES.some(([family]) => family === name));
if (only !== null && (only.length === 0 || unknown.length > 0)) {
  throw new Error(`--only takes families among ${FAMILIES.map(([family]) => family).join(', ')}${unknown.length ? `; not ${unknown.join(', ')}` : ''}`);
}
/** Whether the family ran (every family does without --only). */
const ran = (family) => only === null || only.includes(family);

const rows = [];
for (const [name, file, args, nodeFlags = []] of FAMILIES.filter(([family]) => ran(family))) {
  process.stderr.write(`bench: ${name}…\n`);
  const r = spawnSync(process.execPath, [...nodeFlags, here(file), ...args, ...(smoke ? ['--smoke'] : [])], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 20 * 60 * 1000,
  });
  if (r.status !== 0) {
    process.stderr.write(r.stdout + r.stderr);
    throw new Error(`bench family ${name} failed (exit ${r.status})`);
  }
  rows.push(...r.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)));
}

const find = (scenario, impl) => rows.find((r) => r.scenario === scenario && r.impl === impl);
const ms = (ns) => ns / 1e6;
const fmt = (n, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
const targets = [];
const target = (name, measured, required, met) => targets.push({ name, measured, required, met });

if (ran('typical')) {
  for (const agent of ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']) {
    const b = find(`typical ${agent}`, 'b');
    const c = find(`typical ${agent}`, 'c');
    const ratio = c.medianNs / b.medianNs;
    target(`typical ${agent}: (c)/(b)`, `${fmt(ratio)}× (c ${fmt(c.medianNs / 1000, 1)} µs, b ${fmt(b.medianNs / 1000, 1)} µs)`, '≤ 0.5×', ratio <= 0.5);
  }
  {
    const b = find('typical claude-code, two histories in turn', 'b');
    const c = find('typical claude-code, two histories in turn', 'c');
    target('typical claude-code, two histories in turn (every string checked): (c)/(b)', `${fmt(c.medianNs / b.medianNs)}× (c ${fmt(c.medianNs / 1000, 1)} µs, b ${fmt(b.medianNs / 1000, 1)} µs)`, 'info', null);
  }
}
if (ran('heavy')) {
  const [small, large] = smoke ? [2000, 20000] : [20000, 200000];
  const h20b = find(`heavy ${small}`, 'b');
  const h20c = find(`heavy ${small}`, 'c');
  const h200c = find(`heavy ${large}`, 'c');
  target(`heavy ${small}: median`, `${fmt(ms(h20c.medianNs))} ms`, '≤ 10 ms', ms(h20c.medianNs) <= 10);
  target(`heavy ${small}: (b)/(c)`, `${fmt(h20b.medianNs / h20c.medianNs, 1)}×`, '≥ 10×', h20b.medianNs / h20c.medianNs >= 10);
  target(`heavy ${large} vs ${small}: time ratio`, `${fmt(h200c.medianNs / h20c.medianNs)}×`, '≤ 1.5×', h200c.medianNs / h20c.medianNs <= 1.5);
}
if (ran('seed-style')) {
  const sa = find('seed-style 4000 over budget', 'a');
  const sc = find('seed-style 4000 over budget', 'c');
  target('seed-style: (a)/(c)', `${fmt(sa.medianNs / sc.medianNs, 0)}× (a ${fmt(ms(sa.medianNs), 0)} ms)`, '≥ 1000×', sa.medianNs / sc.medianNs >= 1000);
}
if (ran('langchain')) {
  const lc = find('peer: trimMessages 2000 msgs to 100 KiB', 'langchain');
  const lcc = find('peer: trimMessages 2000 msgs to 100 KiB', 'c');
  target('peer: LangChain trimMessages / (c)', `${fmt(lc.medianNs / lcc.medianNs, 0)}× (LangChain ${fmt(ms(lc.medianNs), 0)} ms, kept ${lc.kept} vs ${lcc.kept})`, '≥ 100×', lc.medianNs / lcc.medianNs >= 100);
}
if (ran('builder')) {
  const bb = find('builder 1000 msgs, run mode', 'b');
  const bc = find('builder 1000 msgs, run mode', 'c');
  target('builder: (c)/(b)', `${fmt(bc.medianNs / bb.medianNs)}× (c ${fmt(ms(bc.medianNs))} ms)`, '≤ 1.5×', bc.medianNs / bb.medianNs <= 1.5);
  const nb = find('builder 1000 msgs, new run context each call', 'b');
  const nc = find('builder 1000 msgs, new run context each call', 'c');
  target('builder, new run context each call (no memo): (c)/(b)', `${fmt(nc.medianNs / nb.medianNs)}×`, 'info', null);
}
if (ran('parse')) {
  for (const how of ['whole', '64 KiB chunks']) {
    const p = find(`parse 10 MB Gemini stream, ${how}`, 'c');
    const mbps = p.bytes / 1e6 / (p.medianNs / 1e9);
    target(`parse 10 MB Gemini stream-json, ${how}`, `${fmt(mbps, 0)} MB/s`, '≥ 200 MB/s', mbps >= 200);
  }
}
if (ran('cold-start')) {
  const cold = find('cold start: load + first call', 'c');
  target('cold start (in the process: load + first call)', `${fmt(ms(cold.medianNs), 1)} ms`, '≤ 20 ms', ms(cold.medianNs) <= 20);
  const bare = find('cold start: bare node -e 0 (process wall time)', 'node');
  const coldWall = find('cold start: node -e load + first call (process wall time)', 'c');
  // The median of each round's difference (the scenario alternates the two
  // processes); the difference of the two medians beside it.
  const over = ms(coldWall.pairedOverBareNs);
  target('cold start over a bare node -e 0 (new process: load + first call)', `${fmt(over, 1)} ms, median of paired rounds (medians ${fmt(ms(coldWall.medianNs), 1)} vs ${fmt(ms(bare.medianNs), 1)} ms: ${fmt(ms(coldWall.medianNs - bare.medianNs), 1)})`, '≤ 10 ms', over <= 10);
  const printing = find('cold start: node -e load + first call + its figures to stdout (process wall time)', 'c');
  target('  the same process printing its figures (creates process.stdout), as measured before', `${fmt(ms(printing.medianNs - bare.medianNs), 1)} ms`, 'info', null);
  const bareEsm = find('cold start: bare node --input-type=module -e 0 (process wall time)', 'node');
  const esm = find('cold start: import + first call (process wall time)', 'c');
  target('  the same through import, over node --input-type=module -e 0', `${fmt(ms(esm.medianNs - bareEsm.medianNs), 1)} ms`, 'info', null);
  const floor = find('cold start: an empty package with the same exports map (process wall time)', 'floor');
  target('  an empty package with the same exports map, over node -e 0 (Node\'s part: first require, exports resolver)', `${fmt(ms(floor.pairedOverBareNs), 1)} ms paired (medians ${fmt(ms(floor.medianNs - bare.medianNs), 1)})`, 'info', null);
  target('  the package over that empty package (its own part), paired', `${fmt(ms(floor.packageOverFloorNs), 1)} ms`, 'info', null);
  const cpu = find('cold start: process CPU time', 'c');
  target('  same in CPU time (all threads)', `${fmt(ms(cpu.medianNs - cpu.bareNs), 1)} ms (${fmt(ms(cpu.medianNs), 1)} vs ${fmt(ms(cpu.bareNs), 1)} ms)`, 'info', null);
  const floorCpu = find('cold start: an empty package with the same exports map (process CPU time)', 'floor');
  target('  the empty package in CPU time, over node -e 0', `${fmt(ms(floorCpu.medianNs - cpu.bareNs), 1)} ms`, 'info', null);
  const phases = rows.find((r) => r.scenario === 'cold start phases');
  target(
    'cold start phases (medians)',
    `load ${fmt(ms(phases.loadNs), 1)} ms = resolve ${fmt(ms(phases.resolveNs), 1)} + JS glue ${fmt(ms(phases.restOfLoadNs), 1)} + read .wasm ${fmt(ms(phases.readNs), 1)} + compile ${fmt(ms(phases.compileNs), 1)} + instantiate ${fmt(ms(phases.instantiateNs), 1)} + wiring ${fmt(ms(phases.wiringNs), 1)}; first call ${fmt(ms(phases.firstCallNs), 1)} ms`,
    'info',
    null,
  );
}
if (ran('cache')) {
  for (const agent of ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']) {
    const stable = find(`cache prefix ${agent}`, 'cacheStable');
    const plain = find(`cache prefix ${agent}`, 'default');
    const pct = (r) => `${fmt(100 * r.share, 1)} %`;
    target(
      `prefix kept, ${stable.calls} calls, ${stable.budget / 1024} KiB, ${agent}: cacheStable`,
      `${pct(stable)} (${stable.hits} calls; ~${fmt(stable.sampledKeptMean, 0)} messages kept)`,
      '≥ 90 %',
      stable.share >= 0.9,
    );
    target(`  same, default trimming`, `${pct(plain)} (${plain.hits} calls; ~${fmt(plain.sampledKeptMean, 0)} messages kept)`, 'info', null);
  }
}
const wasmSize = statSync(here('../pkg/web/agent_context_bg.wasm')).size;
target('.wasm size (main module, Node and web)', `${fmt(wasmSize / 1024, 0)} KB (${wasmSize} bytes)`, '≤ 250 KB', wasmSize <= 250 * 1024);
// The Node-only module (the session engine and runners), compiled on the first call that needs it.
const toolWasmSize = statSync(here('../pkg/node/agent_context_node_bg.wasm')).size;
target('Node-only .wasm (runners, loaded on first use)', `${fmt(toolWasmSize / 1024, 0)} KB (${toolWasmSize} bytes)`, 'info', null);
if (ran('memory')) {
  const mem = rows.find((r) => r.family === 'memory');
  const heapGrowth = mem.heapEnd - mem.heapAfterWarmup;
  target(
    'memory flat after warm-up',
    `wasm ${fmt(mem.wasmAfterWarmup / 1048576, 1)} → ${fmt(mem.wasmEnd / 1048576, 1)} MiB, heap ${fmt(mem.heapAfterWarmup / 1048576, 1)} → ${fmt(mem.heapEnd / 1048576, 1)} MiB`,
    'no growth',
    mem.wasmEnd === mem.wasmAfterWarmup && heapGrowth < 2 * 1048576,
  );
}
// Scenarios that state their own target (bench/scenarios/run-agent.mjs).
for (const r of rows.filter((row) => row.target)) target(r.target.name, r.target.measured, r.target.required, r.target.met);

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${fmt(os.totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, ${os.platform()} ${os.arch()}`;
const width = Math.max(...targets.map((t) => t.name.length));
const mwidth = Math.max(...targets.map((t) => t.measured.length));
const lines = [
  `| target${' '.repeat(width - 6)} | measured${' '.repeat(mwidth - 8)} | required  | met |`,
  `|${'-'.repeat(width + 2)}|${'-'.repeat(mwidth + 2)}|-----------|-----|`,
  ...targets.map((t) => `| ${t.name.padEnd(width)} | ${t.measured.padEnd(mwidth)} | ${t.required.padEnd(9)} | ${t.met === null ? ' — ' : t.met ? 'yes' : 'NO '} |`),
];
console.log(`${smoke ? 'SMOKE RUN (timings mean nothing)\n' : ''}${machine}\n\n${lines.join('\n')}`);
if (!smoke && only === null) {
  writeFileSync(here('results.json'), `${JSON.stringify({ date: new Date().toISOString(), machine, targets, rows }, null, 2)}\n`);
}
