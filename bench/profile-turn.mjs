// Where an ACP turn's host CPU goes: the acp-parse family's turn of 20 000
// recorded session/update lines through the session engine, in a loop, for
// `node --cpu-prof bench/profile-turn.mjs [seconds] [--events] [--recorded]`
// (with an onEvent; the session recorded); prints the CPU time
// (process.cpuUsage) per turn and per JSON.parse of the same lines.
import { readdirSync, readFileSync } from 'node:fs';
import { engineTurn } from './engine-turn.mjs';

const FIXTURES = new URL('../tests/fixtures/acp/', import.meta.url);
const AGENTS = { claude: 'claude-code', codex: 'openai-codex', gemini: 'google-gemini', qwen: 'qwen-code', copilot: 'github-copilot', opencode: 'opencode' };
const recorded = [];
for (const [dir, agentType] of Object.entries(AGENTS)) {
  for (const version of readdirSync(new URL(`${dir}/`, FIXTURES))) {
    for (const file of readdirSync(new URL(`${dir}/${version}/`, FIXTURES)).sort()) {
      for (const line of readFileSync(new URL(`${dir}/${version}/${file}`, FIXTURES), 'utf8').split('\n')) {
        if (line.includes('"method":"session/update"') && line.length <= 64 * 1024) recorded.push({ agentType, line });
      }
    }
  }
}
const perAgent = new Map();
const lines = [];
for (let i = 0; lines.length < 20_000; i++) {
  const { agentType, line } = recorded[i % recorded.length];
  lines.push(line);
  if (!perAgent.has(agentType)) perAgent.set(agentType, []);
  perAgent.get(agentType).push(line);
}
const streams = [...perAgent].map(([agentType, ls]) => {
  const buffer = Buffer.from(`${ls.join('\n')}\n`, 'utf8');
  const chunks = [];
  for (let at = 0; at < buffer.length; at += 64 * 1024) chunks.push(buffer.subarray(at, at + 64 * 1024));
  return { agentType, chunks };
});
const cpu = (fn, n) => {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const c = process.cpuUsage();
    fn();
    const d = process.cpuUsage(c);
    samples.push((d.user + d.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[n >> 1];
};
const seconds = Number(process.argv[2] ?? 10);
const onEvent = process.argv.includes('--events');
const recordedSession = process.argv.includes('--recorded');
const turn = () => streams.map(({ agentType, chunks }) => engineTurn(agentType, chunks, onEvent, recordedSession));
const parse = () => lines.forEach((l) => JSON.parse(l));
for (let i = 0; i < 3; i++) (turn(), parse());
const end = Date.now() + seconds * 1000;
let t = [], p = [];
while (Date.now() < end) {
  t.push(cpu(turn, 1));
  p.push(cpu(parse, 1));
}
const med = (s) => s.sort((a, b) => a - b)[s.length >> 1];
console.log(`turn ${med(t).toFixed(1)} ms CPU, JSON.parse ${med(p).toFixed(1)} ms CPU, ratio ${(med(t) / med(p)).toFixed(2)}× (${t.length} samples)`);
