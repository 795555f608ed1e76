// The process layer of the runners (runAgent, runGeminiTool), Node only,
// POSIX: one child in its own process group, the prompt written to its stdin
// and stdin closed, its output handed on as it comes, and the whole group
// killed on an idle timeout, at the deadline, on abort, and once it exits
// (whatever it left running goes with it). No decision is made here: the
// core says what to spawn, how long to wait and what the end means.
//
// Kept to this one small module so that the platform layer (Windows
// `taskkill /T`, `.cmd` shims, `resolveAgentCommand`) can replace it.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Process groups still running, killed if the host process exits first. */
const running = new Set();
let exitHookInstalled = false;

/** SIGKILL to the whole process group `pid` leads; gone already is fine. */
function killTree(pid) {
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
      for (const group of running) killTree(group);
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
 * `name` looked up on `env.PATH` (a name with a slash is taken as it is);
 * the name itself when not found, so that the spawn says ENOENT.
 * Stand-in until the platform layer's resolveAgentCommand.
 */
function findCommand(name, env) {
  if (name.includes('/')) return name;
  for (const dir of (env.PATH || '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return name;
}

/**
 * One process: spawn `command args` in `cwd`, write `stdin` and close it,
 * hand each chunk to `onStdout`/`onStderr`, stop the group on the first of
 * idle timeout (restarted by any output), `deadline` (a Date.now() value)
 * and `signal`'s abort, or when `stop(reason)` is called. Resolves
 * `{ exitCode, signal, spawnError, stopped }` once the process has ended;
 * `onSpawn(pid)` is called once it runs.
 */
function runProcess({ command, args, stdin, cwd, env, idleTimeoutMs, deadline, signal, onStdout, onStderr, onSpawn, control }) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
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
        killTree(child.pid);
      }
    };
    if (control) control.stop = stop;
    const idleTimer = setTimeout(() => stop('idle_timeout'), idleTimeoutMs);
    const deadlineTimer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
    const onAbort = () => stop('aborted');
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });

    const settle = (exitCode, exitSignal) => {
      if (settled) return;
      settled = true;
      clearTimeout(idleTimer);
      clearTimeout(deadlineTimer);
      signal?.removeEventListener('abort', onAbort);
      if (child.pid !== undefined) {
        killTree(child.pid);
        running.delete(child.pid);
      }
      resolve({ exitCode, signal: exitSignal, spawnError, stopped });
    };

    if (child.pid !== undefined) {
      track(child.pid);
      onSpawn?.(child.pid);
    }
    child.stdout.on('data', (chunk) => {
      idleTimer.refresh();
      onStdout(chunk);
    });
    child.stderr.on('data', (chunk) => {
      idleTimer.refresh();
      onStderr(chunk);
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
    child.stdin.end(stdin);
  });
}

module.exports = { runProcess, killTree, directoryProblem, sleep, findCommand };
