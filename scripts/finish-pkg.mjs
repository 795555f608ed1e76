// Completes what wasm-bindgen wrote in pkg/node and pkg/web (run by build.sh):
// 1. `templates`: the files the core embeds with include_str!, as a frozen
//    object on both builds (readable before the web build's init());
// 2. the fast paths (js/fast-path.js) wrapping the generated functions, with
//    the internal planner exports removed from Node's exports, and
//    AgentOutputParser#push over the core's `__push` (js/parser-events.js);
// 3. the Gemini tool's Node runner, runAgent's (js/agent-run.cjs), their
//    process layer (js/agent-process.cjs), the platform layer
//    (js/agent-platform.cjs with `resolveAgentCommand` and the core's platform
//    functions, js/spawn-agent.cjs) and the MCP server (js/mcp-server.cjs)
//    copied into pkg/node; `runAgent`, `runGeminiTool`,
//    `readEngineeringContext` and `resolveAgentCommand` on the Node entry (the runner is required on
//    the first call of either, and it requires the tool's own module,
//    agent_context_gemini_tool.js, on the first runGeminiTool) and their
//    declarations (js/gemini-tool.d.ts) in its .d.ts;
// 4. pkg/node/agent_context.mjs, the ESM entry over the CommonJS build (one
//    instance, every export named);
// 5. a package.json per build saying which module kind it is, and a lib
//    reference in the declarations for Symbol.dispose;
// 6. from the core's registry of agents (knownAgents()): which classes get
//    the fast path (2.) and the KnownAgentType union in the declarations.
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const crate = 'agent_context';
const node = `${root}pkg/node/${crate}.js`;
const web = `${root}pkg/web/${crate}.js`;

const TEMPLATE_NAMES = ['base-rules-chat.md', 'base-rules-run.md', 'tool-policy.md', 'run-directive-protocol.md'];
const templates = Object.fromEntries(TEMPLATE_NAMES.map((n) => [n, readFileSync(`${root}templates/${n}`, 'utf8')]));
const literal = JSON.stringify(templates, null, 2);
appendFileSync(node, `\nexports.templates = Object.freeze(${literal});\n`);
appendFileSync(web, `\nexport const templates = Object.freeze(${literal});\n`);

// The platform functions (src/wasm/platform_api.rs), in the Node-only module.
const PLATFORM_FUNCTIONS = [
  'checkCommandLine',
  'windowsCommandLine',
  'parseCmdShim',
  'planCommandSearch',
  'planLaunch',
  'finishLaunch',
  'commandNotFoundMessage',
  'planKill',
];
const INTERNAL = ['__layoutInfo', '__planContext', '__PlanStep', '__planMessages'];
// Each registered agent's assembler class (the core's registry, read from
// the module wasm-bindgen just wrote), and the plain-text fallback's.
// Dropped from require's cache at once: the entry is required again below,
// once everything is appended.
const requireNode = createRequire(import.meta.url);
const registry = requireNode(node).knownAgents();
delete requireNode.cache[requireNode.resolve(node)];
const CLASSES = [
  ...registry.filter((a) => a.assemblerClass).map((a) => [a.assemblerClass, a.agentType]),
  ['PlainTextAssembler', 'unknown'],
];
const REPLACED = [
  ['assemble', '__fast.assemble'],
  ['buildPrompt', '__fast.buildPrompt'],
  ['buildLlmMessagesFromConversation', '__fastBuilder.buildLlmMessagesFromConversation'],
];
const glue = [readFileSync(`${root}js/fast-path.js`, 'utf8'), readFileSync(`${root}js/parser-events.js`, 'utf8')].join('\n');
const wiring = (kind) =>
  [
    '',
    glue,
    'const __fast = createFastPath({ assemble, buildPrompt, layoutInfo: __layoutInfo, planContext: __planContext, PlanStep: __PlanStep });',
    ...CLASSES.map(([cls, agent]) => `__fast.patchClass(${cls}, ${JSON.stringify(agent)});`),
    'patchAgentOutputParser(AgentOutputParser);',
    'const __fastBuilder = createFastBuilder({ buildLlmMessagesFromConversation, composeSystemPrompt, planMessages: __planMessages });',
    ...(kind === 'node'
      ? [...REPLACED.map(([name, value]) => `exports.${name} = ${value};`), ...INTERNAL.map((name) => `delete exports.${name};`)]
      : REPLACED.map(([name, value]) => `${name} = ${value};`)),
    '',
  ].join('\n');
appendFileSync(node, wiring('node'));
appendFileSync(web, wiring('web'));

for (const file of ['gemini-tool.cjs', 'mcp-server.cjs', 'agent-process.cjs', 'agent-run.cjs', 'agent-platform.cjs', 'spawn-agent.cjs']) {
  copyFileSync(`${root}js/${file}`, `${root}pkg/node/${file}`);
}
appendFileSync(
  node,
  [
    '',
    "// The Gemini tool (Node only): ./gemini-tool.cjs, required on first use; it loads",
    "// the tool's own WebAssembly module (agent_context_gemini_tool_bg.wasm) on the first run.",
    "exports.runGeminiTool = function runGeminiTool(params, options) { return require('./gemini-tool.cjs').runGeminiTool(params, options); };",
    "exports.readEngineeringContext = function readEngineeringContext(cd) { return require('./gemini-tool.cjs').readEngineeringContext(cd); };",
    '// runAgent (Node only): ./agent-run.cjs, required on first use; it loads the same second module.',
    "exports.runAgent = function runAgent(agentType, request, options) { return require('./agent-run.cjs').runAgent(exports, agentType, request, options); };",
    '',
    '// Platforms (Node only): ./agent-platform.cjs finds agents; the decisions come from the',
    "// core's platform functions in the second module, required on first use.",
    "exports.resolveAgentCommand = function resolveAgentCommand(agentType, options) { return require('./agent-platform.cjs').resolveAgentCommand(agentType, options); };",
    ...PLATFORM_FUNCTIONS.map(
      (name) => `exports.${name} = function ${name}(...args) { return require('./agent-platform.cjs').platformCore().${name}(...args); };`,
    ),
    '',
  ].join('\n'),
);
appendFileSync(`${root}pkg/node/${crate}.d.ts`, readFileSync(`${root}js/gemini-tool.d.ts`, 'utf8'));
appendFileSync(`${root}pkg/node/${crate}.d.ts`, readFileSync(`${root}js/platform.d.ts`, 'utf8'));
appendFileSync(`${root}pkg/node/${crate}.d.ts`, readFileSync(`${root}js/agent-run.d.ts`, 'utf8'));

const names = Object.keys(createRequire(import.meta.url)(node)).filter((n) => n !== '__esModule');
writeFileSync(
  `${root}pkg/node/${crate}.mjs`,
  [
    '// Generated by scripts/finish-pkg.mjs: ESM entry over the CommonJS build (one instance).',
    "import { createRequire } from 'node:module';",
    `const cjs = createRequire(import.meta.url)('./${crate}.js');`,
    `export const { ${names.join(', ')} } = cjs;`,
    'export default cjs;',
    '',
  ].join('\n'),
);
// KnownAgentType: the registry's agent types, in its order.
const union = registry.map((a) => `'${a.agentType}'`).join(' | ');
for (const dts of [`${root}pkg/node/${crate}.d.ts`, `${root}pkg/web/${crate}.d.ts`]) {
  const text = readFileSync(dts, 'utf8');
  const placeholder = '// The union is written from the core\'s registry by scripts/finish-pkg.mjs.\nexport type KnownAgentType = never;';
  if (!text.includes(placeholder)) throw new Error(`finish-pkg: no KnownAgentType placeholder in ${dts}`);
  writeFileSync(dts, text.replace(placeholder, `export type KnownAgentType = ${union};`));
}
// The declarations use Symbol.dispose (the classes can be `using`d): they
// bring that lib along, so a consumer's tsc need not target ESNext.
for (const dts of [`${root}pkg/node/${crate}.d.ts`, `${root}pkg/web/${crate}.d.ts`]) {
  writeFileSync(dts, `/// <reference lib="esnext.disposable" />\n${readFileSync(dts, 'utf8')}`);
}

writeFileSync(`${root}pkg/node/package.json`, '{ "type": "commonjs" }\n');
writeFileSync(`${root}pkg/web/package.json`, '{ "type": "module" }\n');
