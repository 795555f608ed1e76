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

/**
 * The PIDs of the processes other than this one whose environment holds
 * `entry` (`NAME=value`); those of other users cannot be read and are not
 * listed. Empty without /proc.
 */
function marked(entry) {
  const found = [];
  for (const pid of pids() ?? []) {
    if (Number(pid) === process.pid) continue;
    let environ;
    try {
      environ = fs.readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // gone meanwhile, or not ours
    }
    if (environ.startsWith(`${entry}\0`) || environ.includes(`\0${entry}\0`)) found.push(Number(pid));
  }
  return found;
}

module.exports = { groupRuns, marked, processRuns };
