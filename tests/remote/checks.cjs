// What the remote-host tests check of this machine (Linux /proc): that a
// secret is in no process's argument list, that nothing of a run's channel
// is left (its clients, the shared SSH connection), and that its folder on
// the other side is gone.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** Every live process: `{ pid, argv }`. */
function processes() {
  const out = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const state = fs.readFileSync(`/proc/${entry}/stat`, 'latin1').replace(/^.*\) /, '')[0];
      if (state === 'Z') continue;
      const argv = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter((a, i, all) => a !== '' || i < all.length - 1);
      out.push({ pid: Number(entry), argv });
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** `pid: command` of each process whose argument list holds `secret`. */
function keyInAnyArgumentList(secret) {
  return processes()
    .filter((p) => p.argv.some((a) => a.includes(secret)))
    .map((p) => `${p.pid}: ${p.argv.join(' ').slice(0, 200)}`);
}

/** The run folders left on the other side under `home` (the agent's HOME there). */
function runFoldersThere(home) {
  const base = path.join(home, '.cache', 'agent-context', 'runs');
  return fs.existsSync(base) ? fs.readdirSync(base) : [];
}

/**
 * The channel's local processes of runs whose folder there is under `home`
 * (`{ pid, mode }`: `run`, `reap`, `watch`…), and the shared SSH
 * connections whose folder here is gone (`mode: 'shared'`): what a run must
 * not leave.
 */
function channelProcesses(home) {
  const out = [];
  for (const p of processes()) {
    const at = p.argv.indexOf('agent-context');
    const line = p.argv.join(' ');
    const ssh = path.basename(p.argv[0] ?? '') === 'ssh' || /^ssh: .*\[mux\]/.test(p.argv[0] ?? '');
    if (ssh && /\[mux\]/.test(line)) {
      const socket = /ssh: (\S+) \[mux\]/.exec(line)?.[1];
      if (socket && !fs.existsSync(path.dirname(socket))) out.push({ pid: p.pid, mode: 'shared' });
      continue;
    }
    const control = /ControlPath=(\S+)/.exec(line)?.[1];
    if (ssh && control && !fs.existsSync(path.dirname(control))) {
      out.push({ pid: p.pid, mode: 'shared' });
      continue;
    }
    if (!line.includes(`${home}/.cache/agent-context/runs/`)) continue;
    const mode = at >= 0 ? p.argv[at + 1] : (/ agent-context (\w+) /.exec(line)?.[1] ?? 'unknown');
    out.push({ pid: p.pid, mode });
  }
  return out;
}

/** Waits (up to `ms`) for `ok()`. */
async function waitFor(what, ok, ms = 60_000) {
  const until = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

module.exports = { processes, keyInAnyArgumentList, runFoldersThere, channelProcesses, waitFor };
