// Family 4: buildLlmMessagesFromConversation on 1 000 messages with tool calls.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { conversation } from '../data.mjs';
import { measure, report, smoke } from '../measure.mjs';
import { createBuilder } from '../baselines/builder-careful.mjs';

const pkg = createRequire(import.meta.url)('agent-context');
const build = createBuilder(pkg.templates);
const options = {
  mode: 'run',
  messages: conversation(1000),
  agent: { id: 'carol', name: 'Carol', role: 'UI/UX designer', identity: 'Ten years of dashboards', principles: ['Accessibility first', 'Reuse components'] },
  toolPolicy: { allowedCategories: ['fs', 'project'], deniedTools: ['delete_file'], customRules: ['Ask before writing outside docs/'] },
  runContext: {
    packageName: 'design-kit', workflowName: 'dashboard-design',
    currentStep: { id: 'draft', name: 'Draft the layout', instruction: 'Write docs/layout.md.' },
    state: { stepsCompleted: ['a', 'b'] },
    graph: { outgoingEdges: [{ label: 'approved', targetNodeId: 'review', isDefault: true }] },
  },
};
assert.deepEqual(pkg.buildLlmMessagesFromConversation(options), build(options));

// For transparency: the package keeps the last composed system prompt; here
// the run context changes on every call, so it is composed every time.
let step = 0;
const changing = () => ({ ...options, runContext: { ...options.runContext, currentStep: { ...options.runContext.currentStep, instruction: `Write docs/layout.md (${step++}).` } } });

// (b) and (c) alternate in rounds, each round's median kept, so that a burst
// of other work on the machine hits both alike (as the typical calls are
// timed); the median round of each.
const scenarios = [
  ['builder 1000 msgs, run mode', { b: () => build(options), c: () => pkg.buildLlmMessagesFromConversation(options) }],
  ['builder 1000 msgs, new run context each call', { b: () => build(changing()), c: () => pkg.buildLlmMessagesFromConversation(changing()) }],
];
const rounds = smoke ? 1 : 9;
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
for (const [scenario, fns] of scenarios) {
  const samples = { b: [], c: [] };
  for (let round = 0; round < rounds; round++) {
    for (const impl of ['b', 'c']) samples[impl].push(measure(fns[impl], { smoke, warmup: round === 0 ? 200 : 20, minMs: 100 }).medianNs);
  }
  for (const impl of ['b', 'c']) report({ family: 'builder', scenario, impl, medianNs: median(samples[impl]), iterations: rounds });
}
