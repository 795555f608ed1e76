// What the Node-only entry points check of their options before the core
// reads them: unknown keys (warned, naming the nearest known key: the
// core's words), and the environment's values. Node only.
'use strict';

let warningsOf;
function unknownKeyWarnings(what, keys) {
  warningsOf ??= require('./agent_context_gemini_tool.js').__unknownKeyWarnings;
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

/** `env`'s values are strings (or undefined, which leaves the variable out); the problem's message names the variable, or null. */
function envProblem(env, name) {
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && typeof value !== 'string') {
      return `${name}.${key} must be a string, got ${value === null ? 'null' : typeof value}`;
    }
  }
  return null;
}

module.exports = { loggerOf, warnUnknownKeys, envProblem };
