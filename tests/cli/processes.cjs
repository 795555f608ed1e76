// What the live tests check after each run: that no process of the run is
// left (and `inFreshRun`, which checks it after each test's body). Every run has its own HOME, so its processes are the ones whose
// environment names it (Linux /proc).
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');

/** The fields of `/proc/PID/stat` after the command's name: state, parent, group, session, …; throws when the process is gone. */
function statFields(pid) {
  return fs.readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /, '').split(' ');
}

/** The PIDs of live processes (zombies are not running) whose environment has this HOME. */
function processesWithHome(home) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
      if (environ.includes(`HOME=${home}`) && statFields(entry)[0] !== 'Z') pids.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return pids;
}

/**
 * Whether process `pid` has exited with all its threads, its files (pipes
 * included) closed: gone, or a zombie none of whose threads still runs (a
 * killed process's main thread can be a zombie while others are still on
 * their way out, holding its files).
 */
function exited(pid) {
  try {
    if (!['Z', 'X', 'x'].includes(statFields(pid)[0])) return false;
    return fs.readdirSync(`/proc/${pid}/task`).every((tid) => tid === String(pid));
  } catch {
    return true; // gone
  }
}

/**
 * The run's processes that its host started: those with this HOME whose
 * parent is not one of the run's processes. What an agent starts itself (a
 * search, a shell) has the agent as parent and is not among them.
 */
function startedProcesses(home) {
  const pids = processesWithHome(home);
  return pids.filter((pid) => {
    try {
      return !pids.includes(Number(statFields(pid)[1]));
    } catch {
      return false; // gone since it was listed
    }
  });
}

/**
 * Asserts that nothing of the run with this HOME is left running. The tree
 * was sent SIGKILL before the run resolved; on a loaded machine a killed
 * process can take a moment to go, so it gets up to 15 s, and one that
 * holds SIGKILL pending is going. (Codex's shell snapshot, a `bash -lc` in
 * a session of its own, is out of the group the kill reaches: it ends by
 * itself, once seen waiting on the disk of a loaded machine past 2 s.)
 */
async function assertNothingLeft(home, message = 'nothing of the run is left running') {
  const running = () => processesWithHome(home).filter((pid) => !killPending(pid));
  for (let i = 0; i < 150 && running().length > 0; i += 1) await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(running().map(describeProcess), [], message);
}

/**
 * Whether SIGKILL was sent to the process and it has yet to go: one in
 * uninterruptible sleep (`D`, waiting on the disk of a loaded machine)
 * goes only once that wait ends. A process never sent SIGKILL is not.
 */
function killPending(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'latin1');
    return [...status.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some(([, mask]) => (BigInt(`0x${mask}`) & 0x100n) !== 0n);
  } catch {
    return true; // gone
  }
}

/** A PID with what it runs and its process group, for a failure message. */
function describeProcess(pid) {
  try {
    const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim();
    const stat = statFields(pid);
    return `${pid} [${stat[0]}] ppid ${stat[1]} pgid ${stat[2]} sid ${stat[3]}: ${cmd.slice(0, 200)}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/**
 * Runs `body(ctx)` on `ctx = await setUp()`, then checks that nothing of
 * the run (`ctx.home`) is left running; `cleanUp(ctx)` runs either way.
 */
async function inFreshRun(setUp, cleanUp, body) {
  const ctx = await setUp();
  try {
    await body(ctx);
    await assertNothingLeft(ctx.home);
  } finally {
    cleanUp(ctx);
  }
}

/**
 * The run folders of this process that still exist (js/host/option-check.cjs
 * names them: `$XDG_RUNTIME_DIR/agent-context`, else
 * `~/.cache/agent-context/runs`, `run-<pid>-…`).
 */
function runFolders() {
  const os = require('node:os');
  const path = require('node:path');
  const runtime = process.env.XDG_RUNTIME_DIR;
  const base = runtime && path.isAbsolute(runtime) ? path.join(runtime, 'agent-context') : path.join(os.homedir(), '.cache', 'agent-context', 'runs');
  return fs.existsSync(base) ? fs.readdirSync(base).filter((n) => n.startsWith(`run-${process.pid}-`)) : [];
}

module.exports = { processesWithHome, exited, startedProcesses, describeProcess, assertNothingLeft, inFreshRun, runFolders };
