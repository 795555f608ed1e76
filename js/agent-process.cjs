// The runners' timing (runAgent, runGeminiTool), Node only: one attempt's
// process, spawned and killed by the platform layer (./spawn-agent.cjs:
// stdin written and closed, the whole tree killed — POSIX process group,
// Windows `taskkill /pid N /T /F`), stopped on an idle timeout (restarted by
// any output), at the deadline, on abort, or when the runner asks. And how a
// command is launched (./agent-platform.cjs). No decision is made here: the
// core says what to spawn, how long to wait and what the end means.
'use strict';

const fs = require('node:fs');
const { spawnAgent } = require('./spawn-agent.cjs');
const { resolveAgentCommand } = require('./agent-platform.cjs');

/** Why `dir` cannot be the working directory: `'missing'`, `'not_a_directory'`, an error code, or null. */
/**
 * An INVALID_INPUT error of the package's own class (the Node entry's,
 * beside this file in pkg/node), so `err instanceof AgentContextError` holds.
 */
function inputError(message) {
  const { AgentContextError } = require('./agent_context.js');
  return new AgentContextError('INVALID_INPUT', message);
}

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

/** Whether `command` names a file (has a folder) rather than a name to search for. */
function isPath(command) {
  return /[\\/]/.test(command);
}

/**
 * How to launch `command` for `agentType`: a bare name is resolved
 * (`resolveAgentCommand`: PATH, login shell, install folders, a `.cmd` shim
 * read and run as node + script); a path is used as it is, except a Windows
 * `.cmd`/`.bat`, which is read as a shim too (never run through cmd.exe).
 * Resolves `{ found: true, path, file, args, env }` or the resolver's
 * `{ found: false, kind, message }`.
 */
async function launchFor(agentType, command, env) {
  const shim = process.platform === 'win32' && /\.(cmd|bat)$/i.test(command);
  if (isPath(command) && !shim) return { found: true, path: command, file: command, args: [], env: {} };
  return resolveAgentCommand(agentType, { command, env });
}

/**
 * One process: spawn `file args` in `cwd` with `env`, write `stdin` and
 * close it, hand each chunk to `onStdout`/`onStderr`, stop the tree on the
 * first of idle timeout (restarted by any output, or by the chunks
 * `isProgress` — the core's decision — says are progress), `deadline` (a Date.now()
 * value) and `signal`'s abort, or when `control.stop(reason)` is called.
 * Resolves `{ exitCode, signal, spawnError, stopped }` once it has ended.
 */
function runProcess({ file, args, stdin, cwd, env, idleTimeoutMs, deadline, signal, onStdout, onStderr, control, isProgress }) {
  let stopped = null;
  let child;
  const stop = (why) => {
    if (stopped !== null || child.pid === undefined) return;
    stopped = why;
    child.kill();
  };
  if (control) control.stop = (why) => child && stop(why);
  let idleTimer;
  child = spawnAgent(
    { file, args, cwd, env, stdin },
    {
      onStdout(chunk) {
        if (!isProgress || isProgress(chunk)) idleTimer?.refresh();
        onStdout(chunk);
      },
      onStderr(chunk) {
        if (!isProgress || isProgress(chunk)) idleTimer?.refresh();
        onStderr(chunk);
      },
    },
  );
  idleTimer = setTimeout(() => stop('idle_timeout'), idleTimeoutMs);
  const deadlineTimer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
  const onAbort = () => stop('aborted');
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return child.exited.then((end) => {
    clearTimeout(idleTimer);
    clearTimeout(deadlineTimer);
    signal?.removeEventListener('abort', onAbort);
    // Not started at all (ENOENT, EACCES, E2BIG…): the core says which.
    const spawnError = child.pid === undefined && end.error ? end.error.code : null;
    return { exitCode: end.exitCode, signal: end.signal, spawnError, stopped };
  });
}

module.exports = { runProcess, directoryProblem, sleep, launchFor, inputError };
