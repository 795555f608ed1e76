// The Gemini tool's process runner, Node only. Shipped
// as pkg/node/gemini-tool.cjs; scripts/finish-pkg.mjs wires `runGeminiTool`
// and `readEngineeringContext` into the Node entry, which requires this file
// on the first call of either.
//
// Every decision is the core's: the parameters and the envelope
// (`__GeminiToolCall`, src/tools/gemini_tool/), and the run between them, which is
// runAgent's — Gemini CLI over its command line on the session engine
// (./run.cjs, `__Engine`, src/engine/, driven by ../host/engine-host.cjs): the
// command line, what an attempt came to, whether and when to retry. Those
// classes live in the Node-only second WebAssembly module
// (pkg/node/agent_context_node.js and _bg.wasm, built with the
// crate's `node` feature), compiled on the first runGeminiTool call,
// so the main module and the browsers never carry it.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
/** The process layer, required when a call first spawns. */
const processLayer = () => require('../host/agent-process.cjs');
const inputError = (message) => processLayer().inputError(message);

/** Points at the gemini executable when `options.command` does not. */
const COMMAND_ENV = 'AGENT_CONTEXT_GEMINI_BIN';

/** The engineering context files, relative to `cd`, in the order they are read. */
const ENGINEERING_CONTEXT_FILES = ['ai/contracts/current.md', 'ai/engineering_codex.md', 'ai/PROJECT_CONTEXT.md'];


function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** `{ signal?, command?, env? }`: the host's options, checked. */
function readOptions(options) {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options)) {
    throw inputError(`options must be an object, got ${describe(options)}`);
  }
  const { signal, command, env } = options;
  if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) {
    throw inputError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (command != null && (typeof command !== 'string' || command === '')) {
    throw inputError(`options.command must be a non-empty string, got ${describe(command)}`);
  }
  if (env != null && (typeof env !== 'object' || Array.isArray(env))) {
    throw inputError(`options.env must be an object, got ${describe(env)}`);
  }
  return { signal: signal ?? undefined, command: command ?? undefined, env: env ?? undefined };
}

/** The core's `__GeminiToolCall`: the tool's module is required, and its .wasm compiled, on the first call. */
let GeminiToolCall;
function loadGeminiToolCall() {
  GeminiToolCall ??= require('../core/agent_context_node.cjs').__GeminiToolCall;
  return GeminiToolCall;
}

/**
 * Runs Gemini CLI on `params` (the tool's parameter names and defaults) and resolves
 * the envelope; a problem with `params` is an `invalid_params` envelope,
 * never a rejection. `options` (the host's): `signal` aborts the call,
 * `command` is the executable (default `$AGENT_CONTEXT_GEMINI_BIN`, else
 * `gemini`; a name is found as `resolveAgentCommand` does, and one found
 * nowhere is spawned as it is), `env` the child's environment (default
 * `process.env`). Bad `options` reject with `AgentContextError`.
 */
async function runGeminiTool(params, options) {
  const { signal, command, env: givenEnv } = readOptions(options);
  const env = givenEnv ?? process.env;
  const executable = command ?? (env[COMMAND_ENV] || 'gemini');
  const Call = loadGeminiToolCall();
  const started = Date.now();
  const call = new Call(params, executable);
  let result;
  try {
    const run = call.run();
    if (run === undefined) return call.invalidEnvelope(Date.now() - started);
    // runAgent's run of Gemini CLI, the tool's `cd` named as the tool names it.
    result = await require('./run.cjs').runOnce(run.agentType, run.request, { ...run.options, command: executable }, {
      signal,
      env,
      cdName: 'cd',
      asIs: true,
      onNotFound: (searched) => call.notFound(searched),
      keepEvents: run.keepEvents,
    });
    const duration = Date.now() - started;
    const envelope = call.envelope(result, duration);
    const line = call.metricsLine(result, duration);
    if (line !== undefined) process.stderr.write(`${line}\n`);
    return envelope;
  } finally {
    result?.free();
    call.free();
  }
}

/**
 * The engineering-context files under `cd` that exist, as
 * `[{ path, content }]` for `composeGeminiToolPrompt` or
 * `formatEngineeringContext`. Gemini never reads them itself.
 */
function readEngineeringContext(cd) {
  if (typeof cd !== 'string' || cd === '') {
    throw inputError(`cd must be a non-empty string, got ${describe(cd)}`);
  }
  const files = [];
  for (const rel of ENGINEERING_CONTEXT_FILES) {
    let content;
    try {
      content = fs.readFileSync(path.join(cd, rel), 'utf8');
    } catch (err) {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') continue;
      throw inputError(`${rel} under ${cd} cannot be read: ${err.code || err.message}`);
    }
    files.push({ path: rel, content });
  }
  return files;
}

module.exports = { runGeminiTool, readEngineeringContext, COMMAND_ENV, ENGINEERING_CONTEXT_FILES };
