// runAgent over the Agent Client Protocol, Node only: open a session, one
// prompt, close, on the session engine (`__Engine`, src/engine/, driven by
// ./engine-host.cjs). Shipped as pkg/node/acp-run.cjs; ./agent-run.cjs
// hands a call with `protocol: 'acp'` here.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { directoryProblem, launchFor, inputError } = require('./agent-process.cjs');
const { EngineHost, engineClass } = require('./engine-host.cjs');
const { runFolderName, writeRunFiles, removeRunFolder, makeRunHome } = require('./option-check.cjs');
const { materialize } = require('./attachments.cjs');

/** `onPermission`, checked (the rest is ./agent-run.cjs's). */
function checkPermissionHandler(options) {
  const { onPermission } = options;
  if (onPermission != null && typeof onPermission !== 'function') {
    throw inputError(`options.onPermission must be a function, got ${onPermission === null ? 'null' : typeof onPermission}`);
  }
  return onPermission ?? undefined;
}

/** The agent as the core reads it: an object (a definition) as it is, anything else as a string. */
function agentArg(agent) {
  return agent !== null && typeof agent === 'object' && !Array.isArray(agent) ? agent : String(agent);
}

function cdWhy(problem) {
  return problem === 'missing' ? 'does not exist' : problem === 'not_a_directory' ? 'is not a directory' : `cannot be used (${problem})`;
}

/**
 * A started engine for `agent` (an agent type, an AgentDefinition or an ACP
 * registry entry: the core reads it): `{ host }`, or `{ failed }` (an
 * AgentContextError's message) when the agent or the options cannot be
 * read. `rest`: the options without the functions and `env`; `process`: an
 * engine of several sessions (openAgent). What the core did not know of a
 * definition is warned through `warn`.
 */
async function startEngine(agent, rest, { env, onPermission, onUpdate, onHostError, warn, Engine = engineClass(), process: several = false }) {
  const { command, onPermission: _p, onUpdate: _u, ...options } = rest;
  // The agent's folder with links resolved: what the client fs methods compare with.
  const given = typeof options.cd === 'string' && options.cd !== '' ? path.resolve(options.cd) : null;
  const cd = given && !directoryProblem(given) ? fs.realpathSync(given) : options.cd;
  // The run's own folder (the endpoint's settings, the agent's home), made
  // only when something is written to it, removed when the engine closes.
  const runFolder = runFolderName();
  let engine;
  try {
    engine = new Engine(agentArg(agent), { ...options, cd, runFolder }, command ?? '', onPermission !== undefined, several, onUpdate !== undefined);
  } catch (err) {
    removeRunFolder(runFolder);
    if (err && err.name === 'AgentContextError') return { failed: err.message };
    throw err;
  }
  const plan = engine.plan();
  writeRunFiles(plan.files);
  makeRunHome(plan.home, env);
  for (const message of plan.warnings ?? []) warn?.(message);
  const problem = directoryProblem(path.resolve(plan.cd));
  if (problem) engine.reject(`options.cd ${cdWhy(problem)}: ${options.cd}`, Date.now());
  const host = new EngineHost(engine, { env, onPermission, onUpdate, onHostError, runFolder, warn });
  if (!problem) {
    const launch = await launchFor(plan.agentType, plan.command, env);
    if (!launch.found) engine.cannotLaunch(launch.kind === 'spawn_failed', launch.message, Date.now());
    else {
      host.launchEnv = launch.env;
      engine.launch(launch.path, launch.file, launch.args, { ...env, ...launch.env }, Date.now());
    }
  }
  return { host, plan };
}

/** Free the engine once nothing more will come. */
function release(host) {
  host.closedPromise.then(() => host.engine.free());
}

/**
 * runAgent with `protocol: 'acp'`. `host` = `{ signal, onEvent, env, rest,
 * output, problem, finish }` as ./agent-run.cjs read them.
 */
async function runAcpAgent(agent, options, hostOptions) {
  const onPermission = checkPermissionHandler(options);
  const { signal, onEvent, env, output, problem, finish, warn } = hostOptions;
  const agentType = agentArg(agent);
  const started = Date.now();
  const Engine = engineClass();
  if (problem) return Engine.invalidRun(agentType, problem, Date.now() - started, false);
  let hostError;
  const failHost = (err) => {
    hostError ??= err;
  };
  const { attachments: given, ...others } = hostOptions.rest;
  const rest = { ...others, systemPrompt: output?.systemFlag ?? undefined };
  // Over ACP images travel as data: nothing to write.
  const attachments = given == null || typeof rest.cd !== 'string' ? given : materialize(given, { cd: path.resolve(rest.cd), scratch: null });
  const { host, plan, failed } = await startEngine(agent, rest, { env, onPermission, onHostError: failHost, warn });
  if (failed !== undefined) return Engine.invalidRun(agentType, failed.replace(/^invalid parameters: /, ''), Date.now() - started, false);
  if (signal?.aborted) {
    host.engine.free();
    removeRunFolder(host.runFolder);
    return Engine.invalidRun(agentType, '', Date.now() - started, true);
  }
  const limits = { idleMs: plan.idleTimeoutMs, maxMs: plan.maxDurationMs, maxRetries: plan.maxRetries, events: onEvent !== undefined };
  let op;
  const onAbort = () => host.feed((e, now) => e.abort(op, now));
  signal?.addEventListener('abort', onAbort, { once: true });
  const wrapped = onEvent && ((event) => onEvent(event));
  host.onHostError = (err) => {
    failHost(err);
    host.feed((e, now) => e.abort(op, now));
  };
  let done;
  try {
    done = await host.run((now) => {
      op = host.engine.prompt([{ type: 'text', text: output?.prompt ?? '' }], limits, now, undefined, attachments ?? undefined);
      return op;
    }, wrapped);
    await host.run((now) => host.engine.close(now));
    await host.closedPromise;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  if (hostError !== undefined) {
    host.engine.free();
    throw hostError;
  }
  const duration = Date.now() - started;
  const result = done.turn;
  result.durationMs = duration;
  delete result.stopReason;
  // `finish` (internal: the MCP tools') turns the engine's last turn into their envelope.
  const value = finish ? finish(host.engine, duration) : result;
  host.engine.free();
  return value;
}

module.exports = { runAcpAgent, startEngine, release, checkPermissionHandler, cdWhy, agentArg };
