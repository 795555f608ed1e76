// The context builder (seed 004) through the package name, as an Electron main process uses it.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  buildLlmMessagesFromConversation,
  composeSystemPrompt,
  toOpenAIMessage,
  parseRunDirective,
  templates,
} from 'agent-context';

const dir = new URL('../golden/context/', import.meta.url);
const cases = JSON.parse(readFileSync(new URL('cases.json', dir), 'utf8'));

test('golden system prompts for chat, agent and run modes', () => {
  for (const c of cases) {
    const expected = readFileSync(new URL(c.golden, dir), 'utf8');
    const { messages, metadata } = buildLlmMessagesFromConversation(c.options);
    assert.deepEqual(messages[0], { role: 'system', content: expected }, c.name);
    assert.equal(metadata.systemPromptLength, expected.length, c.name);
    assert.deepEqual(Object.keys(metadata), ['inputCount', 'outputCount', 'filteredCount', 'systemPromptIncluded', 'systemPromptLength']);
    assert.equal(composeSystemPrompt(c.options), expected, c.name);
  }
});

test('emoji count as two UTF-16 units in systemPromptLength', () => {
  const options = { mode: 'agent', agent: { id: 'x', name: '🎨🎨🎨', role: 'r' }, messages: [] };
  const { messages, metadata } = buildLlmMessagesFromConversation(options);
  assert.equal(metadata.systemPromptLength, messages[0].content.length);
  assert.equal(messages[0].content.length - [...messages[0].content].length, 3);
});

test('templates are readable and the embedded ones are what the prompt uses', () => {
  assert.deepEqual(Object.keys(templates), ['base-rules-chat.md', 'base-rules-run.md', 'tool-policy.md', 'run-directive-protocol.md']);
  assert.ok(Object.isFrozen(templates));
  assert.ok(composeSystemPrompt({ mode: 'chat' }).endsWith(templates['base-rules-chat.md'].trimEnd()));
  assert.ok(composeSystemPrompt({ mode: 'run' }).endsWith(templates['base-rules-run.md'].trimEnd()));
  const custom = composeSystemPrompt({ mode: 'run' }, { templates: { 'base-rules-run.md': 'Just do the step.' } });
  assert.equal(custom, '# Mode: RUN\n\n---\n\nJust do the step.');
});

test('maxMessages keeps tool calls with their results and reports what it trimmed', () => {
  const messages = [
    { role: 'user', content: 'q' },
    { role: 'assistant', content: null, toolCalls: [{ id: '1', name: 'f', arguments: '{}' }] },
    { role: 'tool', toolCallId: '1', content: 'r' },
    { role: 'assistant', content: 'a' },
  ];
  const out = buildLlmMessagesFromConversation({ mode: 'chat', messages, settings: { includeSystemPrompt: false, maxMessages: 2 } });
  assert.deepEqual(out.messages, [{ role: 'assistant', content: 'a' }]);
  assert.equal(out.metadata.trimmedCount, 3);
});

test('a run-mode reply closes the loop through parseRunDirective', () => {
  const runContext = cases.find((c) => c.golden === 'run-full.txt').options.runContext;
  const reply = 'Layout drafted.\n\n```run-directive\n{"step": "draft-layout", "status": "complete", "transition": "approved", "artifacts": ["docs/layout.md"], "summary": "Grid, breakpoints and charts placed."}\n```';
  assert.deepEqual(parseRunDirective(reply, runContext), {
    valid: true, step: 'draft-layout', status: 'complete', transition: 'approved', artifacts: ['docs/layout.md'], summary: 'Grid, breakpoints and charts placed.',
  });
  assert.equal(parseRunDirective('No directive.'), null);
  const broken = parseRunDirective('```run-directive\n{"step": "draft-layout", status: complete}\n```');
  assert.equal(broken.valid, false);
  assert.match(broken.error, /not valid JSON/);
});

test('toOpenAIMessage and INVALID_INPUT naming the message', () => {
  assert.deepEqual(toOpenAIMessage({ role: 'user', content: 'hi', id: 'm1', createdAt: 1 }), { role: 'user', content: 'hi' });
  assert.throws(
    () => buildLlmMessagesFromConversation({ mode: 'chat', messages: [{ role: 'user', content: 'a' }, { role: 'critic', content: 'b' }] }),
    { name: 'AgentContextError', code: 'INVALID_INPUT', message: "messages[1].role must be 'user', 'assistant', 'system' or 'tool', got \"critic\"" },
  );
});
