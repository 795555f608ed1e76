// The Gemini tool's process runner, Node only. Shipped
// as pkg/node/gemini-tool.cjs; scripts/finish-pkg.mjs wires `runGeminiTool`
// and `readEngineeringContext` into the Node entry, which requires this file
// on the first call of either.
//
// Every decision is the core's (`__GeminiToolRun`, src/gemini_tool/): the
// parameters, the command line, what an attempt came to, whether and when to
// retry, the envelope. That class lives in the tool's own WebAssembly module
// (pkg/node/agent_context_node.js and _bg.wasm, built with the crate's
// `gemini-tool` feature), compiled on the first runGeminiTool call, so the
// main module and the browsers never carry it. This file finds the
// executable and drives the process layer it shares with runAgent
// (./agent-process.cjs over ./spawn-agent.cjs: the prompt written to Gemini
// CLI's stdin and stdin closed, its whole process tree killed on an idle
// timeout, at max_duration or on abort) and feeds the output to the core.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
/** The process layer, required when a call first spawns. */
const processLayer = () => require('./agent-process.cjs');
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

/** Every attempt of one call, as the core decides. */
async function drive(run, plan, { signal, env, started }) {
  const { runProcess, directoryProblem, sleep, launchFor } = processLayer();
  const cwd = path.resolve(plan.cd);
  const problem = directoryProblem(cwd);
  if (problem) return run.rejectCd(problem);
  // A name is resolved (PATH, login shell, install folders, a .cmd shim read
  // as node + script); not found, it is spawned as it is and the spawn's
  // ENOENT is the envelope's command_not_found, as before.
  const launch = signal?.aborted ? { found: false } : await launchFor('google-gemini', plan.command, env);
  if (launch.kind === 'command_not_found') run.notFound(launch.message);
  let childEnv = env;
  if (launch.found) {
    childEnv = Object.keys(launch.env).length ? { ...env, ...launch.env } : env;
    run.launch(launch.path, launch.file, launch.args, childEnv);
    plan = run.plan();
    if (!plan) return;
  }
  const deadline = started + plan.maxDurationMs;
  for (let n = 0; n < plan.maxAttempts; n += 1) {
    if (signal?.aborted) return run.abort();
    run.startAttempt();
    const control = {};
    const end = await runProcess({
      file: plan.command,
      args: plan.args,
      stdin: plan.stdin,
      cwd,
      env: childEnv,
      idleTimeoutMs: plan.idleTimeoutMs,
      deadline,
      signal,
      control,
      onStdout: (chunk) => run.pushStdout(chunk),
      // Past max_retries of Gemini CLI's own retries, the core says stop.
      onStderr: (chunk) => {
        run.pushStderr(chunk);
        if (run.overOwnRetries()) control.stop('own_retries');
      },
    });
    // spawn also says ENOENT when the working directory went away meanwhile.
    const gone = end.spawnError === 'ENOENT' && directoryProblem(cwd);
    if (gone) return run.rejectCd(gone);
    const wait = run.endAttempt(end.exitCode, end.signal, end.spawnError, end.stopped, Date.now() - started);
    if (wait === undefined) return;
    if (await sleep(wait, signal)) return run.abort();
  }
}

/** The core's `__GeminiToolRun`: the tool's module is required, and its .wasm compiled, on the first call. */
let GeminiToolRun;
function loadGeminiToolRun() {
  GeminiToolRun ??= require('./agent_context_node.js').__GeminiToolRun;
  return GeminiToolRun;
}

/**
 * Runs Gemini CLI on `params` (the tool's parameter names and defaults) and resolves
 * the envelope; a problem with `params` is an `invalid_params` envelope,
 * never a rejection. `options` (the host's): `signal` aborts the call,
 * `command` is the executable (default `$AGENT_CONTEXT_GEMINI_BIN`, else
 * `gemini`; a name is found as `resolveAgentCommand` does), `env` the child's environment (default
 * `process.env`). Bad `options` reject with `AgentContextError`.
 */
async function runGeminiTool(params, options) {
  const { signal, command, env: givenEnv } = readOptions(options);
  const env = givenEnv ?? process.env;
  const executable = command ?? (env[COMMAND_ENV] || 'gemini');
  const Run = loadGeminiToolRun();
  const started = Date.now();
  const run = new Run(params, executable);
  try {
    const plan = run.plan();
    if (plan) await drive(run, plan, { signal, env, started });
    const duration = Date.now() - started;
    const envelope = run.envelope(duration);
    const line = run.metricsLine(duration);
    if (line !== undefined) process.stderr.write(`${line}\n`);
    return envelope;
  } finally {
    run.free();
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
