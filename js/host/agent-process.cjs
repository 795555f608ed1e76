// What every runner asks of the file system and the platform before the
// session engine runs an agent, Node only: why a working folder cannot be
// used, how a command is launched (./agent-platform.cjs), and the package's
// own INVALID_INPUT error. The processes themselves are ./engine-host.cjs's
// (over ./spawn-agent.cjs). No decision is made here.
'use strict';

const fs = require('node:fs');
const { resolveAgentCommand } = require('./agent-platform.cjs');

/**
 * An INVALID_INPUT error of the package's own class (the Node entry's,
 * beside this file in pkg/node), so `err instanceof AgentContextError` holds.
 */
function inputError(message) {
  const { AgentContextError } = require('../core/agent_context.cjs');
  return new AgentContextError('INVALID_INPUT', message);
}

/** Why `dir` cannot be the working directory: `'missing'`, `'not_a_directory'`, an error code, or null. */
function directoryProblem(dir) {
  try {
    return fs.statSync(dir).isDirectory() ? null : 'not_a_directory';
  } catch (err) {
    return err.code === 'ENOENT' || err.code === 'ENOTDIR' ? 'missing' : err.code || 'unreadable';
  }
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

const { describe } = require('./describe.cjs');

module.exports = { directoryProblem, launchFor, inputError, describe };
