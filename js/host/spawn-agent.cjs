'use strict';
// The process layer under runAgent (Node only): spawns a resolved command,
// writes stdin and always closes it, hands stdout/stderr chunks over, kills
// the whole tree as the core's kill plan says (POSIX process group; Windows
// `taskkill /pid N /T /F`, then the child itself), and reports how the
// process ended or why it could not start. It decides nothing.

const { spawn } = require('node:child_process');
const { randomUUID } = require('node:crypto');
const fs = require('node:fs');
const { platformCore } = require('./agent-platform.cjs');
const { groupRuns, marked, markedSoon, processRuns } = require('./process-table.cjs');

/** Children still running, killed if the host process exits first. */
const running = new Map();
/** What else the host's end must undo (the runs' own folders), while there is any. */
const cleanups = new Set();
let exitHookInstalled = false;

function endAll() {
  for (const kill of running.values()) kill(true);
  for (const cleanup of cleanups) cleanup();
}

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', endAll);
}

// A signal that ends the host by default (Ctrl-C, `kill`, a closed terminal)
// does not run 'exit' hooks, and the agents run in process groups of their
// own: without these listeners they would outlive the host. While children
// run, the host's signals are watched; when nothing else in the host listens
// to that signal (Node's default would end the process), the trees are
// killed, the listeners removed and the signal raised again, so the host
// still ends by it. When the host listens itself, it decides; if it then
// exits, the exit hook kills the trees.
const HOST_SIGNALS = process.platform === 'win32' ? ['SIGINT', 'SIGTERM', 'SIGBREAK'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];
const signalListeners = new Map();

function onHostSignal(signal) {
  // Prepended, so a host's `once` listener has not removed itself yet.
  if (process.listenerCount(signal) > 1) return;
  endAll();
  removeSignalHooks();
  process.kill(process.pid, signal);
}

function installSignalHooks() {
  if (signalListeners.size > 0) return;
  for (const signal of HOST_SIGNALS) {
    const listener = () => onHostSignal(signal);
    signalListeners.set(signal, listener);
    process.prependListener(signal, listener);
  }
}

function removeSignalHooks() {
  for (const [signal, listener] of signalListeners) process.removeListener(signal, listener);
  signalListeners.clear();
}

function track(pid, kill) {
  installExitHook();
  installSignalHooks();
  running.set(pid, kill);
}

function untrack(pid) {
  running.delete(pid);
  if (running.size === 0 && cleanups.size === 0) removeSignalHooks();
}

/**
 * `cleanup` runs when the host ends — it exits, or a signal it does not
 * handle ends it — until the returned function is called.
 */
function onHostEnd(cleanup) {
  installExitHook();
  installSignalHooks();
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
    if (running.size === 0 && cleanups.size === 0) removeSignalHooks();
  };
}

/** `signal` to each of `pids` (what left the group, Linux); returns them. */
function signalEach(pids, signal) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** After the child exited: SIGKILL to its process group, if the plan has one; gone already is fine. */
function sweepGroup(steps) {
  for (const step of steps) {
    if (step.kind !== 'signalGroup') continue;
    try {
      process.kill(-step.pid, step.signal);
    } catch {
      // nothing of the group is left
    }
  }
}

/** The size of the file at `file`, 0 when there is none. */
function sizeOf(file) {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Reads what is added to the file `watch.path` (which the agent appends to;
 * absent until it writes; what an earlier process wrote is skipped) every
 * `watch.everyMs`, handing each new part to `onData`; once more than
 * `watch.keepBytes` were read the file is emptied. `stop()` reads a last
 * time and closes it.
 */
function watchFile(watch, onData) {
  let fd = null;
  let offset = sizeOf(watch.path);
  const buffer = Buffer.alloc(64 * 1024);
  const read = () => {
    try {
      fd ??= fs.openSync(watch.path, 'r');
      if (fs.fstatSync(fd).size < offset) offset = 0; // emptied by someone else
      for (let n = fs.readSync(fd, buffer, 0, buffer.length, offset); n > 0; n = fs.readSync(fd, buffer, 0, buffer.length, offset)) {
        offset += n;
        onData(Buffer.from(buffer.subarray(0, n)));
      }
      if (offset > watch.keepBytes) {
        fs.truncateSync(watch.path, 0);
        offset = 0;
      }
    } catch {
      // not written yet, or gone: the next read tries again
    }
  };
  const timer = setInterval(read, watch.everyMs);
  timer.unref?.();
  return {
    stop() {
      clearInterval(timer);
      read();
      if (fd !== null) {
        try {
          fs.closeSync(fd);
        } catch {}
      }
    },
  };
}

/** A spawn error as plain data: `{ code, errno, syscall, path, message }`. */
function describeError(err) {
  return { code: err.code ?? 'UNKNOWN', errno: err.errno, syscall: err.syscall, path: err.path, message: err.message };
}

/**
 * Spawns `plan` = `{ file, args, cwd, env, stdin, keepStdin?, platform?,
 * watch?, keepStrays? }` (`stdin`: a string or Buffer written then closed;
 * `null`/`undefined`: closed at once; `keepStdin`: left open for the
 * caller, as `stdin`; `watch`: `{ path, everyMs, keepBytes }`, a file the
 * agent writes while it runs, read until it has exited; `keepStrays`: what
 * it starts outside its group is not its run's — the shared SSH connection
 * a remote channel's first process leaves).
 * `handlers.onStdout(chunk)` / `onStderr(chunk)` / `onWatched(chunk)` get
 * Buffers as they come.
 * Returns `{ pid, exited, kill, stdin, ended }`: `exited` resolves once, with
 * `{ exitCode, signal, error }` (`error` set when the process could not be
 * started: EINVAL, EACCES, E2BIG, ENAMETOOLONG, ENOENT…); `kill()` stops
 * the whole tree and resolves `{ by, tried }` once its steps ran.
 */
function spawnAgent(plan, handlers = {}) {
  const platform = plan.platform ?? process.platform;
  const core = platformCore();
  const options = core.planKill(platform);
  // The mark of this spawn's processes in their environment, where the plan looks for strays.
  const mark = options.strays && !plan.keepStrays ? { name: options.strays.env, value: randomUUID() } : null;
  const env = mark === null ? plan.env : { ...(plan.env ?? process.env), [mark.name]: mark.value };
  // Strays killed, which `treeGone` waits for, and the sweep after the exit.
  const strays = [];
  let swept = Promise.resolve();
  let child;
  let settle;
  const exited = new Promise((resolve) => {
    settle = resolve;
  });
  let done = false;
  let watched = null;
  const finish = (result) => {
    if (done) return;
    done = true;
    watched?.stop();
    if (child?.pid) untrack(child.pid);
    settle(result);
  };
  try {
    child = spawn(plan.file, plan.args ?? [], {
      cwd: plan.cwd,
      env,
      detached: options.detached,
      windowsHide: options.windowsHide,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (err) {
    // Thrown at once: EINVAL (a .cmd without a shell, a NUL), E2BIG…
    finish({ exitCode: null, signal: null, error: describeError(err) });
    return { pid: undefined, exited, kill: async () => ({ by: null, tried: [] }) };
  }
  let spawnError;
  child.on('error', (err) => {
    spawnError ??= describeError(err);
    // No 'close' follows a failed spawn.
    if (child.pid === undefined) finish({ exitCode: null, signal: null, error: spawnError });
  });
  child.on('close', (exitCode, signal) => {
    // Whatever it left running in its process group goes with it (POSIX),
    // and, once the caller has heard of the end, what left the group (Linux).
    if (child.pid !== undefined) sweepGroup(core.planKill(platform, child.pid).steps);
    finish({ exitCode, signal, error: spawnError ?? null });
    if (mark !== null) {
      swept = markedSoon(mark.name, mark.value).then((pids) => strays.push(...signalEach(pids, options.strays.signal)));
    }
  });
  child.stdout.on('data', (chunk) => handlers.onStdout?.(chunk));
  child.stderr.on('data', (chunk) => handlers.onStderr?.(chunk));
  if (plan.watch && child.pid !== undefined) watched = watchFile(plan.watch, (chunk) => handlers.onWatched?.(chunk));
  // The child may exit without reading its stdin: EPIPE is not an error here.
  child.stdin.on('error', () => {});
  // `keepStdin`: the caller writes and closes it (a JSON-RPC peer, ACP).
  if (plan.keepStdin) {
    // left open
  } else if (plan.stdin === undefined || plan.stdin === null) child.stdin.end();
  else child.stdin.end(plan.stdin);

  // Resolves `{ by, tried }`: the step that stopped the tree (`signalGroup`,
  // `run`, `killChild`, or `null` when nothing was running) and the kinds of
  // those that failed before it.
  const kill = async (sync = false) => {
    const tried = [];
    if (done || child.pid === undefined) return { by: null, tried };
    // What left the group: at the host's exit now (nothing after an await
    // runs, and no 'close' comes); else the sweep after the exit finds it.
    if (sync && mark !== null) strays.push(...signalEach(marked(mark.name, mark.value), options.strays.signal));
    for (const step of core.planKill(platform, child.pid).steps) {
      if (step.kind === 'signalGroup') {
        try {
          process.kill(-step.pid, step.signal);
          return { by: step.kind, tried };
        } catch (err) {
          if (err.code === 'ESRCH') return { by: null, tried };
        }
      } else if (step.kind === 'run') {
        if (sync) continue; // at host exit: no time to wait for a process
        const ok = await new Promise((resolve) => {
          try {
            const killer = spawn(step.file, step.args, { stdio: 'ignore', windowsHide: true });
            killer.on('error', () => resolve(false));
            killer.on('close', (code) => resolve(code === 0));
          } catch {
            resolve(false);
          }
        });
        if (ok) return { by: step.kind, tried };
      } else if (step.kind === 'killChild') {
        child.kill('SIGKILL');
        return { by: step.kind, tried };
      }
      tried.push(step.kind);
    }
    return { by: null, tried };
  };
  if (child.pid !== undefined) track(child.pid, kill);
  // Resolves once nothing of its process group and none of its strays is
  // left (after it exited and both were swept), or after a bound: what
  // `close()` waits for.
  const treeGone = async () => {
    await exited;
    // Never started: no tree (and a group of 0 would be the host's own).
    if (child.pid === undefined) return;
    await swept;
    const group = core.planKill(platform, child.pid).steps.find((s) => s.kind === 'signalGroup');
    const runs = () => (group !== undefined && groupRuns(group.pid)) || strays.some(processRuns);
    for (let i = 0; i < 120 && runs(); i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  };
  return {
    pid: child.pid,
    exited,
    treeGone,
    kill: () => kill(false),
    stdin: child.stdin,
    /** Whether it has ended (`exited` settles right after the last read of `watch`). */
    get ended() {
      return done;
    },
  };
}

module.exports = { onHostEnd, spawnAgent };
