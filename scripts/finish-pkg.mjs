// Completes what wasm-bindgen wrote in pkg/node and pkg/web (run by build.sh):
// 1. `templates`: the files the core embeds with include_str!, as a frozen
//    object on both builds (readable before the web build's init());
// 2. the fast paths (js/web/fast-path.js) wrapping the generated functions, with
//    the internal planner exports removed from Node's exports, and
//    AgentOutputParser#push over the core's `__push` (js/web/parser-events.js);
// 3. the Node-only JS host copied flat into pkg/node from its layers' folders,
//    each relative require made to name the file beside it:
//    js/api (runAgent's js/api/agent-run.cjs over js/api/run.cjs, the one run
//    driver; sessions and the conversation carried from a record,
//    AgentTeam's class, the Gemini tool's runner, the MCP server), js/host
//    (the session engine's executor js/host/engine-host.cjs, the process and
//    platform layer), js/record (the session records and stores) and
//    js/remote; `runAgent`, `runGeminiTool`,
//    `readEngineeringContext` and `resolveAgentCommand` on the Node entry (the runner is required on
//    the first call of either, and it requires the Node-only module,
//    agent_context_node.js, on the first call that needs it) and their
//    declarations (js/types/gemini-tool.d.ts, js/types/team.d.ts, …) in its .d.ts;
// 4. pkg/node/agent_context.mjs, the ESM entry over the CommonJS build (one
//    instance, every export named);
// 5. a package.json per build saying which module kind it is, and a lib
//    reference in the declarations for Symbol.dispose;
// 6. from the core's registry of agents (knownAgents()): which classes get
//    the fast path (2.) and the KnownAgentType union in the declarations;
//    and, asked of the core, each agent's layout and the known input keys,
//    which the fast path (2.) then has from its first call.
import { appendFileSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const crate = 'agent_context';
const tool = `${crate}_node`;
const node = `${root}pkg/node/${crate}.js`;
const web = `${root}pkg/web/${crate}.js`;

// The JS host's folders whose files pkg/node ships as they are (js/web is
// appended to both builds' glue, js/types to the Node build's declarations).
const NODE_LAYERS = ['api', 'host', 'record', 'remote', 'transport', 'serve'];

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
// The other function only Node has (src/wasm/mod.rs, js/types/node-only.d.ts),
// also in the Node-only module: out of the main module, which browsers
// download and every new process compiles.
const NODE_ONLY_FUNCTIONS = ['buildCliInvocation'];
const INTERNAL = ['__layoutInfo', '__planContext', '__planArea', '__PlanStep', '__planMessages', '__knownInputKeys'];
// Each registered agent's assembler class (the core's registry, read from
// the module wasm-bindgen just wrote), and the plain-text fallback's.
// Dropped from require's cache at once: the entry is required again below,
// once everything is appended.
const requireNode = createRequire(import.meta.url);
const built = requireNode(node);
const registry = built.knownAgents();
// What the fast path would ask the core on its first calls, asked now: each
// registered agent's layout and the known input keys (a new process's first
// call then makes no extra wasm call, js/web/fast-path.js).
const preset = {
  layouts: Object.fromEntries(registry.map((a) => [a.agentType, JSON.parse(built.__layoutInfo(a.agentType))])),
  knownInputKeys: built.__knownInputKeys(),
};
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
const glue = [readFileSync(`${root}js/web/fast-path.js`, 'utf8'), readFileSync(`${root}js/web/parser-events.js`, 'utf8')].join('\n');
const wiring = (kind) =>
  [
    '',
    glue,
    `const __fast = createFastPath({ assemble, buildPrompt, layoutInfo: __layoutInfo, planContext: __planContext, planArea: __planArea, memory: () => wasm.memory, PlanStep: __PlanStep, preset: ${JSON.stringify(preset)} });`,
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

// Every Node-only file of the JS host, from its layer's folder into pkg/node,
// flat (so a name may be in one folder only). In the source tree a file
// requires another as it sits there ('../host/agent-process.cjs') and the
// core's modules through js/core/ ('../core/agent_context_node.cjs', which
// names the glue in pkg/node); copied flat, each of those requires names the
// file beside it ('./agent-process.cjs', './agent_context_node.js'). A
// relative require of anything else fails the build.
const shipped = new Map();
for (const layer of NODE_LAYERS) {
  for (const file of readdirSync(`${root}js/${layer}`).filter((f) => f.endsWith('.cjs'))) {
    if (shipped.has(file)) throw new Error(`finish-pkg: js/${layer}/${file} and js/${shipped.get(file)}/${file} would both be pkg/node/${file}`);
    shipped.set(file, layer);
  }
}
// js/core/<name>.cjs: `module.exports = require('../../pkg/node/<glue>')`.
const coreGlue = new Map();
for (const file of readdirSync(`${root}js/core`).filter((f) => f.endsWith('.cjs'))) {
  const glue = /require\('\.\.\/\.\.\/pkg\/node\/([^'/]+)'\)/.exec(readFileSync(`${root}js/core/${file}`, 'utf8'));
  if (!glue) throw new Error(`finish-pkg: js/core/${file} does not require a file of pkg/node`);
  coreGlue.set(`core/${file}`, glue[1]);
}
for (const [file, layer] of shipped) {
  const text = readFileSync(`${root}js/${layer}/${file}`, 'utf8');
  const flat = text.replace(/require\((['"])(\.\.?\/[^'"]+)\1\)/g, (whole, quote, specifier) => {
    const target = posix.normalize(`${layer}/${specifier}`);
    const name = coreGlue.get(target) ?? (shipped.get(posix.basename(target)) === posix.dirname(target) ? posix.basename(target) : undefined);
    if (name === undefined) throw new Error(`finish-pkg: js/${layer}/${file} requires ${specifier}, which is not shipped in pkg/node`);
    return `require(${quote}./${name}${quote})`;
  });
  writeFileSync(`${root}pkg/node/${file}`, flat);
}
appendFileSync(
  node,
  [
    '',
    "// The Gemini tool (Node only): ./gemini-tool.cjs, required on first use; it loads",
    "// the Node-only WebAssembly module (agent_context_node_bg.wasm) on the first run.",
    "exports.runGeminiTool = function runGeminiTool(params, options) { return require('./gemini-tool.cjs').runGeminiTool(params, options); };",
    "exports.readEngineeringContext = function readEngineeringContext(cd) { return require('./gemini-tool.cjs').readEngineeringContext(cd); };",
    '// runAgent (Node only): ./agent-run.cjs, required on first use; it loads the same second module.',
    "exports.runAgent = function runAgent(agentType, request, options) { return require('./agent-run.cjs').runAgent(exports, agentType, request, options); };",
    '// openAgentSession (Node only): ./session.cjs, required on first use; the same second module.',
    "exports.openAgentSession = function openAgentSession(agentType, options) { return require('./session.cjs').openAgentSession(exports, agentType, options); };",
    "exports.openConversation = function openConversation(store, conversationId, options) { return require('./session.cjs').openConversation(exports, store, conversationId, options); };",
    '// openAgent (Node only): ./open-agent.cjs, one process holding several sessions; the same second module.',
    "exports.openAgent = function openAgent(agentType, options) { return require('./open-agent.cjs').openAgent(exports, agentType, options); };",
    '// serveAgent (Node only): ./serve-agent.cjs, an ACP agent over Streamable HTTP and WebSocket; required on first use.',
    "exports.serveAgent = function serveAgent(options) { return require('./serve-agent.cjs').serveAgent(options); };",
    '// AgentTeam (Node only): ./team.cjs, a small class; its sessions are openAgentSession\'s.',
    '// Required on first use, like the runners: loading the library loads only this file.',
    "Object.defineProperty(exports, 'AgentTeam', { enumerable: true, configurable: true, get() {",
    "  const AgentTeam = require('./team.cjs').defineAgentTeam(exports);",
    "  Object.defineProperty(exports, 'AgentTeam', { value: AgentTeam, enumerable: true, writable: true, configurable: true });",
    '  return AgentTeam;',
    '} });',
    '',
    '// Session stores (Node only): ./session-store.cjs keeps records as files in a folder,',
    '// ./memory-session-store.cjs in memory; both read them through this module. Required on first use.',
    "exports.openSessionStore = function openSessionStore(dir) { return require('./session-store.cjs').openSessionStore(dir); };",
    "exports.memorySessionStore = function memorySessionStore() { return require('./memory-session-store.cjs').memorySessionStore(); };",
    "exports.listConversations = function listConversations(store, filter) { return require('./conversations.cjs').listConversations(store, filter); };",
    "exports.readConversation = function readConversation(store, conversationId, options) { return require('./conversations.cjs').readConversation(store, conversationId, options); };",
    '',
    '// Platforms (Node only): ./agent-platform.cjs finds agents; the decisions come from the',
    "// core's platform functions in the second module, required on first use.",
    "exports.resolveAgentCommand = function resolveAgentCommand(agentType, options) { return require('./agent-platform.cjs').resolveAgentCommand(agentType, options); };",
    ...[...PLATFORM_FUNCTIONS, ...NODE_ONLY_FUNCTIONS].map(
      (name) => `exports.${name} = function ${name}(...args) { return require('./agent-platform.cjs').platformCore().${name}(...args); };`,
    ),
    '',
  ].join('\n'),
);
for (const name of ['gemini-tool', 'platform', 'node-only', 'agent-run', 'team', 'session-store', 'serve']) {
  appendFileSync(`${root}pkg/node/${crate}.d.ts`, readFileSync(`${root}js/types/${name}.d.ts`, 'utf8'));
}

// AgentContextError, a runtime class in both builds: the module's errors get
// its prototype (src/wasm/js_error.rs), handed over once the module is
// instantiated (at load in Node, in init() on the web).
const errorClass = readFileSync(`${root}js/web/agent-context-error.js`, 'utf8');
appendFileSync(
  node,
  [
    '',
    errorClass,
    'exports.AgentContextError = AgentContextError;',
    '__setErrorPrototype(AgentContextError.prototype);',
    'delete exports.__setErrorPrototype;',
    '// No-ops, so that code written for the web build (`await init()`) runs unchanged in Node.',
    'exports.init = function init() { return Promise.resolve(); };',
    'exports.initSync = function initSync() {};',
    '',
  ].join('\n'),
);
appendFileSync(web, ['', errorClass, 'export { AgentContextError };', ''].join('\n'));
let webGlue = readFileSync(web, 'utf8');
// A .wasm the page cannot fetch: the error names the file, the URL, and what
// a bundler that does not copy it (esbuild) needs.
const FETCH_FAILED = "throw new Error(`failed to fetch Wasm: ${module.status} ${module.statusText} fetching '${module.url}'`);";
if (!webGlue.includes(FETCH_FAILED)) throw new Error(`finish-pkg: ${web} has no "${FETCH_FAILED}"`);
webGlue = webGlue.replace(
  FETCH_FAILED,
  'throw new Error(`agent-context: cannot load agent_context_bg.wasm: ${module.status} ${module.statusText} fetching \'${module.url}\'. ' +
    "If your bundler did not copy it (esbuild): import wasmUrl from 'agent-context/agent_context_bg.wasm' (with --loader:.wasm=file) " +
    'and call init({ module_or_path: wasmUrl }).`);',
);
const FINALIZE = 'function __wbg_finalize_init(instance, module) {';
if (!webGlue.includes(FINALIZE)) throw new Error(`finish-pkg: ${web} has no "${FINALIZE}"`);
writeFileSync(
  web,
  webGlue.replace(
    FINALIZE,
    [
      FINALIZE,
      '    const exports = __wbg_finalize_init_module(instance, module);',
      '    __setErrorPrototype(AgentContextError.prototype);',
      '    return exports;',
      '}',
      'function __wbg_finalize_init_module(instance, module) {',
    ].join('\n'),
  ),
);

// The Node build's .wasm files: found by js/web/wasm-file.js, which looks in the
// package's folders, then next to a bundle, and names every place it looked
// in when the file is nowhere.
const finder = readFileSync(`${root}js/web/wasm-file.js`, 'utf8');
for (const [glue, file] of [[node, `${crate}_bg.wasm`], [`${root}pkg/node/${tool}.js`, `${tool}_bg.wasm`]]) {
  const text = readFileSync(glue, 'utf8');
  const READ = `const wasmPath = \`\${__dirname}/${file}\`;\nconst wasmBytes = require('fs').readFileSync(wasmPath);`;
  if (!text.includes(READ)) throw new Error(`finish-pkg: ${glue} does not read ${file} as expected`);
  const size = statSync(`${root}pkg/node/${file}`).size;
  writeFileSync(glue, `${text.replace(READ, `const wasmBytes = __agentContextReadWasm('${file}', ${size});`)}\n${finder}`);
}
// The Node-only module's errors are AgentContextErrors too.
appendFileSync(
  `${root}pkg/node/${tool}.js`,
  "\n__setErrorPrototype(require('./agent_context.js').AgentContextError.prototype);\ndelete exports.__setErrorPrototype;\n",
);
// Both builds' main .wasm are the same bytes: one copy ships, in pkg/web
// (where the web build and bundlers look); the Node build reads it there.
if (readFileSync(`${root}pkg/node/${crate}_bg.wasm`).equals(readFileSync(`${root}pkg/web/${crate}_bg.wasm`))) {
  unlinkSync(`${root}pkg/node/${crate}_bg.wasm`);
  unlinkSync(`${root}pkg/node/${crate}_bg.wasm.d.ts`);
}

const names = Object.keys(createRequire(import.meta.url)(node)).filter((n) => n !== '__esModule');
// The ESM entry imports the CommonJS build statically, so that bundlers
// (esbuild, Vite, webpack) follow it. Its default export is init() with every
// export on it: `import init from` and `import lib from … lib.assemble` both work.
// It imports it through a two-line CommonJS file: Node's ESM loader scans
// every CommonJS file an ES module imports for its export names
// (cjs-module-lexer, in JS, cold), and on the ~100 KB glue that scan took
// ~50 ms of a new process's `import` (docs/history/cold-start-passes.md). The entry names
// every export itself, so it needs no scan; the bridge's `module.exports =
// lib` is not a form the scanner follows into the glue.
writeFileSync(
  `${root}pkg/node/${crate}_esm.cjs`,
  [
    '// Generated by scripts/finish-pkg.mjs: the ESM entry\'s way into the CommonJS build,',
    '// so that Node does not scan the whole glue for export names (see the ESM entry).',
    `const lib = require('./${crate}.js');`,
    'module.exports = lib;',
    '',
  ].join('\n'),
);
writeFileSync(
  `${root}pkg/node/${crate}.mjs`,
  [
    '// Generated by scripts/finish-pkg.mjs: ESM entry over the CommonJS build (one instance).',
    `import cjs from './${crate}_esm.cjs';`,
    `export const { ${names.join(', ')} } = cjs;`,
    'const entry = function init() { return cjs.init(); };',
    'for (const name of Object.keys(cjs)) if (!(name in entry)) entry[name] = cjs[name];',
    'export default entry;',
    '',
  ].join('\n'),
);
writeFileSync(
  `${root}pkg/node/${crate}.d.mts`,
  [
    '// Generated by scripts/finish-pkg.mjs: the ESM entry\'s declarations.',
    `import * as lib from './${crate}.js';`,
    `export * from './${crate}.js';`,
    '/** `init()` (a no-op in Node) with every export on it. */',
    'declare const entry: typeof lib.init & typeof lib;',
    'export default entry;',
    '',
  ].join('\n'),
);
appendFileSync(
  `${root}pkg/node/${crate}.d.ts`,
  [
    '',
    '/** A no-op in Node (the module is ready once loaded): code written for the web build, `await init()`, runs unchanged. */',
    'export function init(module_or_path?: unknown): Promise<void>;',
    '/** A no-op in Node, as `init`. */',
    'export function initSync(module?: unknown): void;',
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

// The Node build's glue in ASCII: its only other characters are in comments
// (…, —, the Chinese task types in the doc comments), and one of them makes
// the whole file a two-byte string for V8, read and scanned more slowly. In
// a new process, reading + compiling the main glue took 0.78 + 1.69 ms as it
// was and 0.44 + 1.50 ms in ASCII (31 alternating runs; docs/history/cold-start-passes.md).
// Each such character becomes its \u escape, which means the same in a
// string, a template or a regular expression, and reads as it is in a comment.
for (const file of [node, `${root}pkg/node/${tool}.js`]) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (/[^\x00-\x7f]/.test(ascii)) throw new Error(`finish-pkg: ${file} is not ASCII`);
  writeFileSync(file, ascii);
}

writeFileSync(`${root}pkg/node/package.json`, '{ "type": "commonjs" }\n');
writeFileSync(`${root}pkg/web/package.json`, '{ "type": "module" }\n');
