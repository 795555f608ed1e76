'use strict';
// Finding an agent's executable (Node only): `resolveAgentCommand`, and the
// core's platform functions on the Node entry. The core decides where to
// look, in which order, and how to launch what is found (src/launch/platform/);
// this file only looks at files, reads them, and runs the login shell.
//
// The platform functions live in the Node-only second WebAssembly module
// (agent_context_node.js), required on first use.

const { spawn } = require('node:child_process');
const fs = require('node:fs');

let core;
/** The core's platform functions (the second module, compiled on first use). */
function platformCore() {
  core ??= require('../core/agent_context_node.cjs');
  return core;
}

/** The login shell's output per shell command and PATH, so it runs once a process. */
const loginShellCache = new Map();
const LOGIN_SHELL_TIMEOUT_MS = 5000;
const LOGIN_SHELL_MAX_OUTPUT = 1024 * 1024;

/**
 * Runs the login shell the core asked for, bounded in time (its whole
 * process group is killed at the deadline) and in output; resolves its
 * stdout, or '' when it failed.
 */
function runLoginShell(shell, env, timeoutMs) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(shell.file, shell.args, {
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
        detached: process.platform !== 'win32',
      });
    } catch {
      resolve('');
      return;
    }
    const chunks = [];
    let size = 0;
    const stop = () => {
      try {
        if (process.platform === 'win32') child.kill();
        else process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(stop, timeoutMs);
    child.stdout.on('data', (chunk) => {
      if (size < LOGIN_SHELL_MAX_OUTPUT) chunks.push(chunk);
      size += chunk.length;
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

function loginShellOutput(shell, env, timeoutMs) {
  const key = JSON.stringify([shell.file, shell.args, env.PATH ?? '', env.HOME ?? '']);
  if (!loginShellCache.has(key)) loginShellCache.set(key, runLoginShell(shell, env, timeoutMs));
  return loginShellCache.get(key);
}

/** Whether `path` is a file this process could run (on POSIX: executable). */
async function isRunnable(path, platform) {
  try {
    const stat = await fs.promises.stat(path);
    if (!stat.isFile()) return false;
    if (platform !== 'win32' && process.platform !== 'win32') await fs.promises.access(path, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function firstRunnable(candidates, platform) {
  for (const candidate of candidates) {
    if (await isRunnable(candidate.path, platform)) return candidate;
  }
  return undefined;
}

/** A batch file's whole text (a shim is small), or a file's first bytes (a `#!` line). */
async function readHead(path) {
  const isBatch = /\.(cmd|bat)$/i.test(path);
  const handle = await fs.promises.open(path, 'r');
  try {
    const buffer = Buffer.alloc(isBatch ? 64 * 1024 : 512);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Electron's main process: its executable can stand in for node with ELECTRON_RUN_AS_NODE=1. */
function electronExecPath() {
  const isMain = process.versions.electron && (process.type === 'browser' || process.type === undefined);
  return isMain ? process.execPath : undefined;
}

/**
 * Finds `agentType`'s CLI (or `options.command`) and how to launch it.
 * Resolves `{ found: true, path, source, file, args, env, via, searched }`
 * — spawn `file` with `args` and then the agent's, adding `env` — or
 * `{ found: false, kind, message, searched }` (`command_not_found`, or
 * `spawn_failed` for a `.cmd` only cmd.exe could run).
 */
async function resolveAgentCommand(agentType, options = {}) {
  const c = platformCore();
  const platform = options.platform ?? process.platform;
  const env = options.env ?? process.env;
  const timeoutMs = options.loginShellTimeoutMs ?? LOGIN_SHELL_TIMEOUT_MS;
  const request = { agentType, command: options.command, platform, env };
  let plan = c.planCommandSearch(request);
  const first = plan.candidates.filter((x) => x.source === 'PATH' || x.source === 'given');
  let found = await firstRunnable(first, platform);
  let loginOutput;
  if (!found && plan.loginShell) {
    loginOutput = await loginShellOutput(plan.loginShell, env, timeoutMs);
    plan = c.planCommandSearch({ ...request, loginShellOutput: loginOutput });
  }
  found ??= await firstRunnable(plan.candidates, platform);
  const searched = plan.candidates;
  if (!found) {
    return { found: false, kind: 'command_not_found', message: c.commandNotFoundMessage(plan.command, searched), searched };
  }
  let launch;
  try {
    launch = c.planLaunch({ platform, path: found.path, head: await readHead(found.path) });
  } catch (err) {
    return { found: false, kind: 'spawn_failed', message: err.message, searched };
  }
  let interpreter;
  if (launch.kind === 'interpreter') {
    if (launch.local && (await isRunnable(launch.local, platform))) {
      interpreter = { kind: 'local' };
    } else {
      const search = c.planCommandSearch({ command: launch.name, platform, env, loginShellOutput: loginOutput ?? '' });
      const node = await firstRunnable(search.candidates, platform);
      interpreter = node
        ? { kind: 'found', path: node.path, source: node.source }
        : { kind: 'missing', electronExecPath: options.electronExecPath ?? electronExecPath() };
    }
  }
  try {
    return { found: true, ...c.finishLaunch({ found, launch, interpreter }), searched };
  } catch (err) {
    return { found: false, kind: 'command_not_found', message: err.message, searched };
  }
}

module.exports = {
  resolveAgentCommand,
  platformCore,
};
