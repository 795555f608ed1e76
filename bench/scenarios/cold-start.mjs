// Family 6: a fresh process that loads the package and makes one call.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const script = `
  const t0 = process.hrtime.bigint();
  const { assemble } = require('agent-context');
  assemble('google-gemini', { contextMessages: [{ from: 'a', content: 'hello' }], currentMessage: 'hi', teamTask: null });
  process.stdout.write(String(process.hrtime.bigint() - t0));
`;
const samples = [];
for (let i = 0; i < (smoke ? 2 : 15); i++) {
  const r = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  samples.push(Number(r.stdout));
}
samples.sort((a, b) => a - b);
report({ family: 'cold-start', scenario: 'cold start: load + first call', impl: 'c', medianNs: samples[samples.length >> 1], iterations: samples.length });
