// The Gemini tool's process runner (seed 003, SPEC §7), Node only. Shipped
// as pkg/node/gemini-tool.cjs; scripts/finish-pkg.mjs wires `runGeminiTool`
// and `readEngineeringContext` into the Node entry, which requires this file
// on the first call of either.
//
// Every decision is the core's (`__GeminiToolRun`, src/gemini_tool/): the
// parameters, the command line, what an attempt came to, whether and when to
// retry, the envelope. That class lives in the tool's own WebAssembly module
// (pkg/node/agent_context_gemini_tool.js and _bg.wasm, built with the crate's
// `gemini-tool` feature), compiled on the first runGeminiTool call, so the
// main module and the browsers never carry it. This file spawns Gemini CLI in
// its own process group, writes the prompt to its stdin and closes it, feeds
// its output to the core, and kills the whole group on an idle timeout, at
// max_duration or on abort.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Points at the gemini executable when `options.command` does not. */
const COMMAND_ENV = 'AGENT_CONTEXT_GEMINI_BIN';

/** Seed 003's engineering context, relative to `cd`, in its order. */
const ENGINEERING_CONTEXT_FILES = ['ai/contracts/current.md', 'ai/engineering_codex.md', 'ai/PROJECT_CONTEXT.md'];

function inputError(message) {
  const err = new Error(message);
  err.name = 'AgentContextError';
  err.code = 'INVALID_INPUT';
  return err;
}

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

/** Process groups still running, killed if the host process exits first. */
const running = new Set();
let exitHookInstalled = false;

function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch (err) {
    if (err.code !== 'ESRCH' && err.code !== 'EPERM') throw err;
  }
}

function track(pid) {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const group of running) killGroup(group);
    });
  }
  running.add(pid);
}

/** Why `dir` cannot be the working directory: `'missing'`, `'not_a_directory'`, an error code, or null. */
function directoryProblem(dir) {
  try {
    return fs.statSync(dir).isDirectory() ? null : 'not_a_directory';
  } catch (err) {
    return err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 'missing' : err.code || 'unreadable';
  }
}

/** Waits `ms`; resolves `true` when `signal` aborted the wait. */
function sleep(ms, signal) {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(true);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(true);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(false);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * One attempt: spawn, stream the output into `run`, stop the group on the
 * first of idle timeout, deadline and abort. Resolves
 * `{ exitCode, signal, spawnError, stopped }` once the process has ended.
 */
function attempt(run, plan, { cwd, env, signal, deadline }) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(plan.command, plan.args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ exitCode: null, signal: null, spawnError: err.code || 'EINVAL', stopped: null });
      return;
    }
    let stopped = null;
    let spawnError = null;
    let settled = false;
    const stop = (why) => {
      if (stopped === null && child.pid !== undefined) {
        stopped = why;
        killGroup(child.pid);
      }
    };
    const idleTimer = setTimeout(() => stop('idle_timeout'), plan.idleTimeoutMs);
    const deadlineTimer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
    const onAbort = () => stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });

    const settle = (exitCode, exitSignal) => {
      if (settled) return;
      settled = true;
      clearTimeout(idleTimer);
      clearTimeout(deadlineTimer);
      signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) {
        // Whatever the CLI left running in its group goes with it.
        killGroup(child.pid);
        running.delete(child.pid);
      }
      resolve({ exitCode, signal: exitSignal, spawnError, stopped });
    };

    if (child.pid !== undefined) track(child.pid);
    child.stdout.on('data', (chunk) => {
      idleTimer.refresh();
      run.pushStdout(chunk);
    });
    child.stderr.on('data', (chunk) => {
      idleTimer.refresh();
      run.pushStderr(chunk);
    });
    child.on('error', (err) => {
      // Not started (ENOENT, EACCES, …): 'close' may follow, with nothing to add.
      if (child.pid === undefined) {
        spawnError = err.code || 'UNKNOWN';
        settle(null, null);
      }
    });
    child.on('close', settle);
    child.stdin.on('error', () => {}); // a CLI that exits early closes its end first
    child.stdin.end(plan.stdin);
  });
}

/** Every attempt of one call, as the core decides. */
async function drive(run, plan, { signal, env, started }) {
  const cwd = path.resolve(plan.cd);
  const problem = directoryProblem(cwd);
  if (problem) return run.rejectCd(problem);
  const deadline = started + plan.maxDurationMs;
  for (let n = 0; n < plan.maxAttempts; n += 1) {
    if (signal?.aborted) return run.abort();
    run.startAttempt();
    const end = await attempt(run, plan, { cwd, env, signal, deadline });
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
  GeminiToolRun ??= require('./agent_context_gemini_tool.js').__GeminiToolRun;
  return GeminiToolRun;
}

/**
 * Runs Gemini CLI on `params` (seed 003's names and defaults) and resolves
 * the envelope; a problem with `params` is an `invalid_params` envelope,
 * never a rejection. `options` (the host's): `signal` aborts the call,
 * `command` is the executable (default `$AGENT_CONTEXT_GEMINI_BIN`, else
 * `gemini` on the PATH), `env` the child's environment (default
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
