// What the Node-only entry points check of their options before the core
// reads them: unknown keys (warned, naming the nearest known key: the
// core's words), and the environment's values. Node only.
'use strict';

let warningsOf;
function unknownKeyWarnings(what, keys) {
  warningsOf ??= require('../core/agent_context_node.cjs').__unknownKeyWarnings;
  return warningsOf(what, keys);
}

/** Where warnings go: `options.logger` (a function or an object with `warn`), else the console. */
function loggerOf(options) {
  const logger = options?.logger;
  if (typeof logger === 'function') return (message) => logger(message, 'warn');
  if (logger && typeof logger.warn === 'function') return (message) => logger.warn(message);
  return (message) => console.warn(message);
}

/** Warns once for each key of `object` that `what` does not know. */
function warnUnknownKeys(what, object, warn) {
  if (object === null || typeof object !== 'object' || Array.isArray(object)) return;
  for (const message of unknownKeyWarnings(what, Object.keys(object))) warn(message);
}

/** Warns for unknown keys of `options.endpoint` (its type is the core's to check). */
function warnEndpointKeys(options, warn) {
  warnUnknownKeys('options.endpoint', options?.endpoint, warn);
}

/**
 * A folder for the run's own files (the endpoint's settings, a long system
 * prompt, Copilot's usage), created when a file is written to it and
 * removed by `removeRunFolder`, or when the host ends (it exits, or a signal
 * it does not handle ends it; a host killed outright leaves it, swept
 * when a run starts after). It sits in
 * `$XDG_RUNTIME_DIR` when set, else in `~/.cache/agent-context/runs`: a
 * tree no other user can write (Gemini CLI skips a settings file under a
 * folder others can write, such as /tmp).
 */
function runFolderName() {
  const os = require('node:os');
  const path = require('node:path');
  const runtime = process.env.XDG_RUNTIME_DIR;
  const base = runtime && path.isAbsolute(runtime) ? path.join(runtime, 'agent-context') : path.join(os.homedir(), '.cache', 'agent-context', 'runs');
  const folder = path.join(base, `run-${process.pid}-${Math.random().toString(36).slice(2)}`);
  if (!swept) {
    swept = true;
    sweepDeadHosts(base);
  }
  if (liveFolders.size === 0) {
    releaseHook = require('./spawn-agent.cjs').onHostEnd(() => {
      for (const f of liveFolders) removeRunFolder(f);
    });
  }
  liveFolders.add(folder);
  return folder;
}
const liveFolders = new Set();
let releaseHook = null;
let swept = false;

/** Removes the run folders of hosts that are gone (killed outright), once per process. */
function sweepDeadHosts(base) {
  const fs = require('node:fs');
  let names = [];
  try {
    names = fs.readdirSync(base);
  } catch {
    return; // none yet
  }
  for (const name of names.slice(0, 1000)) {
    const pid = Number(/^run-(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (err) {
      if (err.code === 'ESRCH') fs.rmSync(require('node:path').join(base, name), { recursive: true, force: true });
    }
  }
}

/** Writes `files` (`[{ path, content }]`, absolute paths), their folders made, readable by the user alone. */
function writeRunFiles(files) {
  const fs = require('node:fs');
  const path = require('node:path');
  for (const file of files ?? []) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file.path, file.content, { mode: 0o600 });
  }
}

let homeApi;
/**
 * Makes the run's home that the core planned (`plan.home`, or nothing):
 * lists and reads the user's folder the core names for `env` (the child's
 * environment before the run's own variables), then makes what the core
 * says: the user's session folders when missing, the home's folders, links
 * to the user's entries (junctions for folders on Windows; a file that
 * cannot be linked there is hard-linked, else copied) and the settings.
 */
function makeRunHome(home, env) {
  if (!home) return;
  const fs = require('node:fs');
  homeApi ??= require('../core/agent_context_node.cjs');
  const user = homeApi.__runHomeUserFolder(home, env ?? {});
  let entries = [];
  let settings = null;
  if (user) {
    try {
      entries = fs.readdirSync(user, { withFileTypes: true }).map((e) => ({ name: e.name, dir: e.isDirectory() || (e.isSymbolicLink() && isFolder(user, e.name)) }));
    } catch {}
    try {
      settings = fs.readFileSync(require('node:path').join(user, home.settingsFile), 'utf8');
    } catch {}
  }
  const plan = homeApi.__runHomePlan(home, user, entries, settings);
  for (const folder of plan.kept) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  for (const folder of plan.folders) fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  for (const link of plan.links) linkEntry(fs, link);
  writeRunFiles(plan.files);
}

function isFolder(parent, name) {
  try {
    return require('node:fs').statSync(require('node:path').join(parent, name)).isDirectory();
  } catch {
    return false;
  }
}

function linkEntry(fs, { target, path: at, dir }) {
  try {
    fs.symlinkSync(target, at, dir ? 'junction' : 'file');
  } catch (err) {
    if (dir || process.platform !== 'win32') throw err;
    try {
      fs.linkSync(target, at);
    } catch {
      fs.copyFileSync(target, at);
    }
  }
}

function removeRunFolder(folder) {
  if (!folder) return;
  require('node:fs').rmSync(folder, { recursive: true, force: true });
  liveFolders.delete(folder);
  if (liveFolders.size === 0 && releaseHook) {
    releaseHook();
    releaseHook = null;
  }
}

/** `env`'s values are strings (or undefined, which leaves the variable out); the problem's message names the variable, or null. */
function envProblem(env, name) {
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && typeof value !== 'string') {
      return `${name}.${key} must be a string, got ${value === null ? 'null' : typeof value}`;
    }
  }
  return null;
}

module.exports = { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem, runFolderName, writeRunFiles, removeRunFolder, makeRunHome };
