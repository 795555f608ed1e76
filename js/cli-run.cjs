// One run over an agent's own command line, Node only: `runAgent` over the
// CLI and the Gemini tool. A session of the CLI session engine
// (`__CliEngine.forRun`, src/engine/cli/) opened for one prompt, prompted,
// closed, driven by ./engine-host.cjs like every session. The core decides
// everything (the options and defaults, the command line, what an attempt
// came to, the retries, the result); this file finds the executable, makes
// the run's own folder and home, reads the attachments and the working
// folder, and hands the engine what happened. Shipped as pkg/node/cli-run.cjs.
'use strict';

const path = require('node:path');
const { directoryProblem, launchFor } = require('./agent-process.cjs');
const { EngineHost } = require('./engine-host.cjs');
const { runFolderName, removeRunFolder, makeRunHome } = require('./option-check.cjs');
const { materialize } = require('./attachments.cjs');

let core;
function runnerModule() {
  core ??= require('./agent_context_node.js');
  return core;
}

function cdWhy(problem) {
  return problem === 'missing' ? 'does not exist' : problem === 'not_a_directory' ? 'is not a directory' : `cannot be used (${problem})`;
}

/**
 * Runs `agentType` (a string) on `request` (`{ prompt, systemFlag? }`)
 * with `options` (RunAgentOptions without the functions and `env`) and
 * resolves a `__RunResult` (the caller frees it). `host`: `signal`,
 * `onEvent(event)`, `env` (the child's environment), `cdName` (how the
 * working folder is named in messages: `options.cd`, the tool's `cd`),
 * `asIs` (a name found nowhere is spawned as it is, and `onNotFound(message)`
 * hears where it was looked for), `keepEvents` (the last attempt's events
 * kept in the result), `onHostError(err)` (what `onEvent` threw: the run
 * is stopped). A problem with the input resolves an `invalid_params`
 * result; nothing rejects.
 */
async function runOverCli(agentType, request, options, host) {
  const { signal, onEvent, env, cdName = 'options.cd', asIs = false, onNotFound, keepEvents = false, onHostError } = host;
  const { __CliEngine: CliEngine, __RunResult: RunResult } = runnerModule();
  // The run's own folder: the long system prompt, Copilot's usage, the
  // settings the run owns, images given as data; removed when it closes.
  const runFolder = runFolderName();
  let rest = options;
  if (options.attachments != null && typeof options.cd === 'string') {
    try {
      rest = { ...options, attachments: materialize(options.attachments, { cd: path.resolve(options.cd), scratch: path.join(runFolder, 'attachments') }) };
    } catch (err) {
      removeRunFolder(runFolder);
      throw err;
    }
  }
  const files = {
    systemPromptFile: path.join(runFolder, 'system-prompt.md'),
    usageFile: path.join(runFolder, 'usage.json'),
    settingsFile: path.join(runFolder, 'settings.json'),
    runFolder,
  };
  let engine;
  try {
    engine = CliEngine.forRun(agentType, request, { ...rest, ...files }, rest.command ?? '', keepEvents);
  } catch (err) {
    removeRunFolder(runFolder);
    if (err && err.name === 'AgentContextError') return RunResult.invalid(agentType, err.message);
    throw err;
  }
  const plan = engine.plan();
  const cwd = path.resolve(plan.cd);
  const problem = directoryProblem(cwd);
  if (problem) engine.reject(`${cdName} ${cdWhy(problem)}: ${plan.cd}`, Date.now());
  else if (signal?.aborted) {
    engine.free();
    removeRunFolder(runFolder);
    return RunResult.aborted(agentType);
  }
  const runHost = new EngineHost(engine, {
    env,
    onHostError,
    runFolder,
    cdGone: (dir) => {
      const gone = directoryProblem(dir);
      return gone ? `${cdName} ${cdWhy(gone)}: ${plan.cd}` : undefined;
    },
  });
  if (!problem) {
    const launch = await launchFor(agentType, plan.command, env);
    if (!launch.found && asIs && launch.kind === 'command_not_found') {
      // Spawned as it is: its ENOENT says it is not there.
      onNotFound?.(launch.message);
      engine.launch(plan.command, plan.command, [], env, Date.now());
    } else if (!launch.found) engine.cannotLaunch(launch.kind === 'spawn_failed', launch.message, Date.now());
    else {
      runHost.launchEnv = launch.env;
      const childEnv = Object.keys(launch.env).length ? { ...env, ...launch.env } : env;
      engine.launch(launch.path, launch.file, launch.args, childEnv, Date.now());
      // The agent's home of the run's own, from the caller's environment.
      makeRunHome(plan.home, childEnv);
    }
    if (signal?.aborted) {
      engine.free();
      removeRunFolder(runFolder);
      return RunResult.aborted(agentType);
    }
  }
  const limits = { idleMs: plan.idleTimeoutMs, maxMs: plan.maxDurationMs, maxRetries: plan.maxRetries, events: onEvent !== undefined };
  let op;
  const onAbort = () => runHost.feed((e, now) => e.abort(op, now));
  runHost.onHostError = (err) => {
    onHostError?.(err);
    runHost.feed((e, now) => e.abort(op, now));
  };
  try {
    await runHost.run((now) => {
      op = engine.prompt([{ type: 'text', text: request.prompt }], limits, now, undefined, undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      return op;
    }, onEvent);
    await runHost.run((now) => engine.close(now));
    await runHost.closedPromise;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const result = engine.result();
  engine.free();
  return result;
}

module.exports = { runOverCli, cdWhy };
