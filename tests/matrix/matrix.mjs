// The bad-input matrix: every exported function, every field, every kind of
// bad value. Each call must return a correct result or throw an
// AgentContextError with a known code; after each one a normal call must
// still succeed (a trap would poison the instance). Runs in Node
// (tests/js/matrix.test.mjs) and in headless Chromium (tests/playwright/matrix.test.mjs).

const CODES = new Set(['INVALID_INPUT', 'BUDGET_EXCEEDED', 'INTERNAL']);

const BIG = 'x'.repeat(10 * 1024 * 1024);
const LONE = 'a\uD800b\uDFFFc';

/** Bad values for any field. */
export function badValues() {
  const throwing = {};
  Object.defineProperty(throwing, 'length', { get() { throw new Error('getter'); } });
  return [
    ['missing', undefined, true],
    ['null', null],
    ['undefined', undefined],
    ['zero', 0],
    ['NaN', NaN],
    ['-1', -1],
    ['Infinity', Infinity],
    ['2**53', 2 ** 53],
    ['true', true],
    ['empty string', ''],
    ['lone surrogates', LONE],
    ['10 MB string', BIG],
    ['array', ['a', 'b']],
    ['object', { a: 1 }],
    ['function', () => 1],
    ['symbol', Symbol('s')],
    ['bigint', 10n],
    ['date', new Date(0)],
    ['__proto__ key', JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": 1}}')],
    ['frozen object', Object.freeze({ from: 'a', content: 'b' })],
    ['proxy', new Proxy({ from: 'a', content: 'b' }, {})],
    ['proxy that throws', new Proxy({}, { get() { throw new Error('proxy trap'); }, ownKeys() { throw new Error('proxy keys'); } })],
    ['object with a throwing getter', throwing],
  ];
}

function messages(n) {
  const out = new Array(n);
  for (let i = 0; i < n; i++) out[i] = { from: `u${i % 7}`, to: i % 3 ? 'carol' : undefined, content: `message ${i} é🎉` };
  return out;
}

const assemblerInput = () => ({
  contextMessages: messages(3),
  currentMessage: 'What now?',
  teamTask: 'Ship it',
  systemInstruction: 'You are Carol',
  instructionFileText: 'Be brief',
  maxBytes: 4096,
});

const message = () => ({ from: 'a', to: 'b', content: 'c' });
const conversationMessage = () => ({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] });
const buildOptions = () => ({
  mode: 'run',
  messages: [{ role: 'user', content: 'hi' }, conversationMessage(), { role: 'tool', toolCallId: 'c1', content: 'ok' }],
  agent: { id: 'c', name: 'Carol', role: 'Designer', principles: ['a'] },
  toolPolicy: { deniedTools: ['rm'], customRules: ['ask'] },
  runContext: { packageName: 'p', workflowName: 'w', currentStep: { id: 's', name: 'n', instruction: 'i' }, graph: { outgoingEdges: [{ label: 'ok', targetNodeId: 't' }] } },
  settings: { includeSystemPrompt: true, maxMessages: 10 },
});

const toolPromptInput = () => ({
  taskType: 'review',
  background: 'A library',
  tasks: ['Check the budget', 'Check the parser'],
  expectedOutput: ['Findings'],
  engineeringContext: [{ path: 'ai/contracts/current.md', content: 'Keep it small' }],
});

const utf8 = new TextEncoder();
const isAssemblerOutput = (o, budget) =>
  o !== null && typeof o === 'object' && typeof o.prompt === 'string' && (o.systemFlag === undefined || typeof o.systemFlag === 'string')
  && (!(budget >= 0) || utf8.encode(o.prompt).length + (o.systemFlag ? utf8.encode(o.systemFlag).length : 0) <= budget);

/** Replaces the value at `path` (e.g. ['contextMessages', 1, 'from']) in a fresh copy made by `make`. */
function variant(make, path, value, remove) {
  const root = make();
  let target = root;
  for (const key of path.slice(0, -1)) target = target[key];
  const last = path[path.length - 1];
  if (remove) delete target[last];
  else target[last] = value;
  return root;
}

/** Every path of a plain value (objects and arrays), the root included. */
function paths(value, prefix = []) {
  const out = [prefix];
  if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) out.push(...paths(value[key], [...prefix, Array.isArray(value) ? Number(key) : key]));
  }
  return out;
}

/** The cases: [name, call(lib), check(result) or undefined]. */
export function cases(lib) {
  const out = [];
  const quiet = { logger: () => {} };
  // `callWhole` takes a bad value as the whole input (default: `call`).
  const fieldMatrix = (fnName, make, call, check, callWhole = call) => {
    for (const path of paths(make())) {
      if (path.length === 0) continue;
      for (const [label, value, remove] of badValues()) {
        out.push([`${fnName} ${path.join('.')} = ${label}`, () => call(variant(make, path, value, remove)), check]);
      }
    }
    for (const [label, value] of badValues()) out.push([`${fnName} (whole input) = ${label}`, () => callWhole(value), check]);
  };

  fieldMatrix('assemble', assemblerInput, (x) => lib.assemble('claude-code', x, quiet), (o) => isAssemblerOutput(o));
  fieldMatrix('assembleWithReport', assemblerInput, (x) => lib.assembleWithReport('google-gemini', x, quiet), (o) => isAssemblerOutput(o.output) && typeof o.report === 'object');
  for (const Class of ['ClaudeContextAssembler', 'CodexContextAssembler', 'GeminiContextAssembler', 'PlainTextAssembler']) {
    fieldMatrix(`${Class}.assemble`, assemblerInput, (x) => new lib[Class]().assemble(x), (o) => isAssemblerOutput(o));
  }
  fieldMatrix('buildPrompt', () => ({ agentType: 'openai-codex', systemInstructionText: 's', instructionFileText: 'f', contextMessages: [message()], message: 'm', maxBytes: 2048 }),
    (x) => lib.buildPrompt(x, quiet), (o) => isAssemblerOutput(o));
  fieldMatrix('selectContextMessages', () => ({ messages: messages(4), options: { recipient: 'carol', limit: 2 } }),
    (x) => lib.selectContextMessages(x.messages, x.options), (o) => Array.isArray(o), (v) => lib.selectContextMessages(v));
  fieldMatrix('buildLlmMessagesFromConversation', buildOptions, (x) => lib.buildLlmMessagesFromConversation(x),
    (o) => Array.isArray(o.messages) && typeof o.metadata.outputCount === 'number');
  fieldMatrix('composeSystemPrompt', buildOptions, (x) => lib.composeSystemPrompt(x), (o) => typeof o === 'string');
  fieldMatrix('toOpenAIMessage', conversationMessage, (x) => lib.toOpenAIMessage(x), (o) => typeof o.role === 'string');
  fieldMatrix('ContextManager.assemblePrompt', assemblerInput, (x) => new lib.ContextManager(quiet).assemblePrompt('google-gemini', x), (o) => isAssemblerOutput(o));
  fieldMatrix('composeGeminiToolPrompt', toolPromptInput, (x) => lib.composeGeminiToolPrompt(x), (o) => typeof o === 'string' && o.startsWith('请提供专业意见'));

  for (const [label, value] of badValues()) {
    out.push([`assemble agentType = ${label}`, () => lib.assemble(value, assemblerInput(), quiet), (o) => isAssemblerOutput(o)]);
    out.push([`assemble options = ${label}`, () => lib.assemble('x', assemblerInput(), value), (o) => isAssemblerOutput(o)]);
    out.push([`assemble options.logger = ${label}`, () => lib.assemble('x', assemblerInput(), { logger: value }), (o) => isAssemblerOutput(o)]);
    out.push([`assemble options.debug = ${label}`, () => lib.assemble('x', assemblerInput(), { debug: value, logger: () => {} }), (o) => isAssemblerOutput(o)]);
    out.push([`assemble maxBytes = ${label}`, () => lib.assemble('x', { ...assemblerInput(), maxBytes: value }, quiet), (o) => isAssemblerOutput(o, value)]);
    out.push([`stripPromptMarkers ${label}`, () => lib.stripPromptMarkers(value), (o) => typeof o === 'string']);
    out.push([`parseRunDirective ${label}`, () => lib.parseRunDirective(value), (o) => o === null || typeof o.valid === 'boolean']);
    out.push([`parseRunDirective runContext = ${label}`, () => lib.parseRunDirective('```run-directive\n{"step":"s","status":"blocked"}\n```', value), (o) => o === null || typeof o.valid === 'boolean']);
    out.push([`ContextManager options = ${label}`, () => new lib.ContextManager(value), undefined]);
    out.push([`ContextManager.register ${label}`, () => new lib.ContextManager(quiet).register(value), undefined]);
    out.push([`buildLlmMessagesFromConversation templates = ${label}`, () => lib.buildLlmMessagesFromConversation(buildOptions(), { templates: value }), (o) => Array.isArray(o.messages)]);
    out.push([`formatEngineeringContext ${label}`, () => lib.formatEngineeringContext(value), (o) => typeof o === 'string']);
  }
  out.push(['geminiToolDefinition', () => lib.geminiToolDefinition(), (o) => o.name === 'gemini' && o.inputSchema.required.length === 2]);

  // Sizes: 100 000-element arrays, 10 MB strings in every slot, lone surrogates.
  const many = messages(100_000);
  out.push(['assemble 100 000 messages', () => lib.assemble('claude-code', { ...assemblerInput(), contextMessages: many, maxBytes: 100_000 }, quiet), (o) => isAssemblerOutput(o, 100_000)]);
  out.push(['assembleWithReport 100 000 messages', () => lib.assembleWithReport('claude-code', { ...assemblerInput(), contextMessages: many, maxBytes: 100_000 }, quiet), (o) => o.report.messagesTotal === 100_000]);
  out.push(['selectContextMessages 100 000', () => lib.selectContextMessages(many, { recipient: 'carol', limit: 50 }), (o) => o.length === 50]);
  out.push(['buildLlmMessagesFromConversation 100 000', () => lib.buildLlmMessagesFromConversation({ mode: 'chat', messages: many.map((m) => ({ role: 'user', content: m.content })) }), (o) => o.messages.length === 100_001]);
  out.push(['assemble 10 MB message under the default budget', () => lib.assemble('google-gemini', { contextMessages: [], currentMessage: BIG }, quiet), (o) => isAssemblerOutput(o, 786432) && o.prompt.includes('[... truncated ')]);
  out.push(['assemble 10 MB system instruction', () => lib.assemble('google-gemini', { contextMessages: [], systemInstruction: BIG, maxBytes: 1000 }, quiet), undefined]);
  out.push(['assemble lone surrogates everywhere', () => lib.assemble('claude-code', { contextMessages: [{ from: LONE, to: LONE, content: LONE }], currentMessage: LONE, systemInstruction: LONE, maxBytes: 100 }, quiet), (o) => isAssemblerOutput(o, 100)]);
  out.push(['stripPromptMarkers 10 MB', () => lib.stripPromptMarkers(`[SYSTEM]\n${BIG}`), (o) => o.length === BIG.length]);
  out.push(['a registered assembler that throws', () => {
    const m = new lib.ContextManager(quiet);
    m.register({ getAgentType: () => 'boom', assemble() { throw new Error('host bug'); } });
    return m.assemblePrompt('boom', assemblerInput());
  }, undefined, 'host bug']);
  return out;
}

/** Runs every case; returns a summary with the failures (empty when all is well). */
export function runMatrix(lib, { reference } = {}) {
  const golden = lib.assemble('google-gemini', assemblerInput(), { logger: () => {} }).prompt;
  const all = cases(lib);
  const failures = [];
  let results = 0;
  let errors = 0;
  for (const [name, call, check, hostError] of all) {
    let outcome;
    try {
      const value = call();
      results++;
      if (check && !check(value)) outcome = `returned something wrong: ${String(JSON.stringify(value)).slice(0, 200)}`;
    } catch (err) {
      errors++;
      const isOurs = err instanceof Error && err.name === 'AgentContextError' && CODES.has(err.code) && typeof err.message === 'string' && err.message.length > 0;
      if (!isOurs && !(hostError && err instanceof Error && err.message === hostError)) {
        outcome = `threw ${err?.name}: ${err?.message} (code ${err?.code})`;
      }
    }
    // The instance must still work.
    try {
      const again = lib.assemble('google-gemini', assemblerInput(), { logger: () => {} }).prompt;
      if (again !== golden) outcome = `${outcome ?? ''} and then a normal call gave another prompt`;
    } catch (err) {
      outcome = `${outcome ?? ''} and then a normal call threw ${err?.name}: ${err?.message}`;
    }
    if (outcome) failures.push(`${name}: ${outcome}`);
  }
  if (reference !== undefined && golden !== reference) failures.push('the normal call does not give the reference prompt');
  return { total: all.length, results, errors, failures };
}
