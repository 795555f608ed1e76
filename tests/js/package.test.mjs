// The built package, imported by its name as an ESM user would: no init call.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import agentContext, {
  assemble,
  sampleInput,
  GeminiContextAssembler,
  PlainTextAssembler,
  parseAgentOutput,
  AgentOutputParser,
  buildCliInvocation,
  runGeminiTool,
  readEngineeringContext,
  composeGeminiToolPrompt,
  geminiToolDefinition,
} from 'agent-context';

const golden = new URL('../golden/', import.meta.url);
const examples = JSON.parse(readFileSync(new URL('worked-examples.json', golden), 'utf8'));

test('named ESM imports work with no init, on the same instance as require()', () => {
  assert.equal(typeof assemble, 'function');
  assert.equal(agentContext.assemble, assemble);
  assert.equal(createRequire(import.meta.url)('agent-context').assemble, assemble);
  assert.equal(new GeminiContextAssembler().getAgentType(), 'google-gemini');
  assert.equal(new PlainTextAssembler().getAgentType(), 'unknown');
  assert.equal(agentContext.parseAgentOutput, parseAgentOutput);
  assert.equal(new AgentOutputParser('google-gemini').finish().status, 'incomplete');
  assert.equal(buildCliInvocation('google-gemini', { prompt: 'Hi' }).stdin, 'Hi');
  assert.equal(agentContext.runGeminiTool, runGeminiTool);
  assert.equal(typeof readEngineeringContext, 'function');
  assert.match(composeGeminiToolPrompt({ taskType: 'review', tasks: 'x' }), /^请提供专业意见/);
  assert.equal(geminiToolDefinition().name, 'gemini');
});

test('the seed worked examples and the SPEC formats come out byte for byte', () => {
  assert.equal(examples.length, 10);
  for (const ex of examples) {
    const out = assemble(ex.agentType, ex.input, { logger: { warn() {} } });
    assert.equal(out.prompt, readFileSync(new URL(ex.golden, golden), 'utf8'), ex.name);
    const flag = ex.goldenSystemFlag && readFileSync(new URL(ex.goldenSystemFlag, golden), 'utf8');
    assert.equal(out.systemFlag, flag, ex.name);
  }
});

test('the embedded sample assembles for Gemini', () => {
  const { prompt } = assemble('google-gemini', sampleInput());
  assert.match(prompt, /^Instructions:\nYou are Carol/);
  assert.match(prompt, /\n\nYour task:\nWhat UI framework should we use, and why\?$/);
});
