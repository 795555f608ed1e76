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
report({ family: 'builder', scenario: 'builder 1000 msgs, run mode', impl: 'b', ...measure(() => build(options), { smoke }) });
report({ family: 'builder', scenario: 'builder 1000 msgs, run mode', impl: 'c', ...measure(() => pkg.buildLlmMessagesFromConversation(options), { smoke }) });

// For transparency: the package keeps the last composed system prompt; here
// the run context changes on every call, so it is composed every time.
let step = 0;
const changing = () => ({ ...options, runContext: { ...options.runContext, currentStep: { ...options.runContext.currentStep, instruction: `Write docs/layout.md (${step++}).` } } });
report({ family: 'builder', scenario: 'builder 1000 msgs, new run context each call', impl: 'b', ...measure(() => build(changing()), { smoke }) });
report({ family: 'builder', scenario: 'builder 1000 msgs, new run context each call', impl: 'c', ...measure(() => pkg.buildLlmMessagesFromConversation(changing()), { smoke }) });
