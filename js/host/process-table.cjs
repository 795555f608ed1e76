'use strict';
// What the process layer reads of the system's process table (Linux's
// /proc; elsewhere only what a signal 0 tells): whether a process group or a
// process still runs, and which processes hold a spawn's mark in their
// environment. It decides nothing: the core's kill plan says what to look
// for and what to send.

const fs = require('node:fs');

/** The numeric entries of /proc (the PIDs), or null without one. */
function pids() {
  let entries;
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return null;
  }
  return entries.filter((entry) => entry.charCodeAt(0) <= 57); // a process's name is its number
}

/** `[state, parent, group]` of process `pid` (after the command's closing parenthesis), or null once gone. */
function statOf(pid) {
  let stat;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return null;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
}

/** A zombie holds nothing and runs nothing: it is gone but for its parent's reap. */
const running = (fields) => fields !== null && fields[0] !== 'Z' && fields[0] !== 'X';

/**
 * Whether a process of group `pgid` still runs. A member killed after its
 * parent is a zombie of whatever adopted it until that reaps it, which an
 * init that is not a shell's may do seconds later; so on Linux the group
 * runs while one of its members is not one.
 */
function groupRuns(pgid) {
  try {
    process.kill(-pgid, 0);
  } catch {
    return false; // none left (ESRCH), or none of ours
  }
  const all = process.platform === 'linux' ? pids() : null;
  if (all === null) return true;
  return all.some((pid) => {
    const fields = statOf(pid);
    return running(fields) && Number(fields[2]) === pgid;
  });
}

/** Whether process `pid` still runs (not a zombie, on Linux). */
function processRuns(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return process.platform !== 'linux' || running(statOf(pid));
}

/** `[pid, environment block]` of each process other than this one whose environment can be read (ours). */
function* environments() {
  for (const pid of pids() ?? []) {
    if (Number(pid) === process.pid) continue;
    try {
      yield [Number(pid), fs.readFileSync(`/proc/${pid}/environ`, 'latin1')];
    } catch {
      // gone meanwhile, or not ours
    }
  }
}

/**
 * The PIDs of the processes other than this one whose environment sets
 * `name` to `value`; those of other users cannot be read and are not
 * listed. Empty without /proc.
 */
function marked(name, value) {
  const found = [];
  for (const [pid, environ] of environments()) if (valueIn(environ, name) === value) found.push(pid);
  return found;
}

/** The value of `name` in an environment block (`NAME=value\0…`), or null. */
function valueIn(environ, name) {
  const key = `${name}=`;
  let at = 0;
  if (!environ.startsWith(key)) {
    at = environ.indexOf(`\0${key}`);
    if (at < 0) return null;
    at += 1;
  }
  const start = at + key.length;
  const end = environ.indexOf('\0', start);
  return environ.slice(start, end < 0 ? environ.length : end);
}

/** How long a sweep waits for others to join it. */
const SWEEP_DELAY_MS = 20;
/** Marks waiting for the next sweep: name → value → resolve. */
const waiting = new Map();
let sweepTimer = null;

/** One pass over /proc for every waiting mark. */
function sweepWaiting() {
  sweepTimer = null;
  const batch = new Map(waiting);
  waiting.clear();
  const found = new Map();
  for (const [pid, environ] of environments()) {
    for (const [name, values] of batch) {
      const value = valueIn(environ, name);
      if (value !== null && values.has(value)) found.set(value, [...(found.get(value) ?? []), pid]);
    }
  }
  for (const values of batch.values()) for (const [value, resolve] of values) resolve(found.get(value) ?? []);
}

/**
 * Resolves what `marked` would list for `name=value`, a moment later: the
 * marks asked for meanwhile share one pass over /proc (runs that end
 * together, fifty at once, read it once, not fifty times).
 */
function markedSoon(name, value) {
  return new Promise((resolve) => {
    if (!waiting.has(name)) waiting.set(name, new Map());
    waiting.get(name).set(value, resolve);
    sweepTimer ??= setTimeout(sweepWaiting, SWEEP_DELAY_MS);
  });
}

module.exports = { groupRuns, marked, markedSoon, processRuns };
