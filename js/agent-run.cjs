// runAgent, Node only. Shipped as pkg/node/agent-run.cjs; the
// Node entry requires it on the first call (scripts/finish-pkg.mjs).
//
// Every decision is the core's (`__AgentRunner`, src/run/): the options and
// defaults, the command line, what an attempt came to, whether and when to
// retry, the AgentRun. That class lives in the Node-only second WebAssembly
// module (pkg/node/agent_context_node.js, built with the crate's
// `gemini-tool` feature), compiled on the first call. This file assembles an
// AssemblerInput with the main module's `assemble`, finds the executable
// (the platform layer's resolveAgentCommand, ./agent-platform.cjs), writes
// the files the command line names (Claude's long system prompt) and removes
// them after, makes way for the files the agent writes for the reply and
// hands them to the core (Copilot's usage file), and drives the process
// layer (./agent-process.cjs over ./spawn-agent.cjs).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { runProcess, directoryProblem, sleep, launchFor, inputError } = require('./agent-process.cjs');
const { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem, runFolderName, removeRunFolder, makeRunHome } = require('./option-check.cjs');
const { materialize } = require('./attachments.cjs');


function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** Whether the agent is given by its definition (an AgentDefinition or an ACP registry entry), which runs over ACP. */
function isDefinition(agent) {
  return agent !== null && typeof agent === 'object' && !Array.isArray(agent);
}

/**
 * `api.assemble` for `agentType`; for an agent given by its definition
 * (`defined`) the plain-text layout of an id the library does not know is
 * what the definition asks for, so the core's fallback notice is not passed
 * on (every other warning is).
 */
function assembleFor(api, agentType, request, warn, defined) {
  if (!defined) return api.assemble(agentType, request);
  const fallback = `[ContextManager] Unknown agentType "${agentType}", using PlainTextAssembler`;
  return api.assemble(agentType, request, { logger: (message) => message !== fallback && (warn ?? console.warn)(message) });
}

/**
 * The options only JS can hold, checked; the rest goes to the core.
 * `acpByDefault`: the agent runs over ACP unless `protocol` says otherwise
 * (the registry's default for it, `knownAgents()[i].protocols[0]`).
 */
function hostOptions(options, defined, acpByDefault) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw inputError(`options must be an object, got ${describe(options)}`);
  }
  const { signal, onEvent, env, command } = options;
  if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) {
    throw inputError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (onEvent != null && typeof onEvent !== 'function') {
    throw inputError(`options.onEvent must be a function, got ${describe(onEvent)}`);
  }
  if (env != null && (typeof env !== 'object' || Array.isArray(env))) {
    throw inputError(`options.env must be an object, got ${describe(env)}`);
  }
  const badEnv = env != null && envProblem(env, 'options.env');
  if (badEnv) throw inputError(badEnv);
  if (options.logger != null && typeof options.logger !== 'function' && typeof options.logger?.warn !== 'function') {
    throw inputError(`options.logger must be a function or an object with a warn method, got ${describe(options.logger)}`);
  }
  warnUnknownKeys('runAgent options', options, loggerOf(options));
  warnEndpointKeys(options, loggerOf(options));
  if (command != null && (typeof command !== 'string' || command === '')) {
    throw inputError(`options.command must be a non-empty string, got ${describe(command)}`);
  }
  const { signal: _s, onEvent: _o, env: _e, logger: _l, ...rest } = options;
  // Any protocol but 'cli' goes to the ACP runner, which names the two it
  // takes; an agent definition always does (the core rejects 'cli' for it),
  // and so does, without a protocol, an agent that speaks ACP only ('cli'
  // for it reaches the CLI runner, which refuses it naming the agent).
  const acp = defined || (rest.protocol != null ? rest.protocol !== 'cli' : acpByDefault);
  if (!acp) delete rest.onPermission; // ACP only
  return { signal: signal ?? undefined, onEvent: onEvent ?? undefined, env: env ?? process.env, rest, acp };
}

let AgentRunner;
function loadRunner() {
  AgentRunner ??= require('./agent_context_node.js').__AgentRunner;
  return AgentRunner;
}

/**
 * `request` as an AssemblerOutput: given as one (a string `prompt`), or
 * assembled with the agent's layout. `{ output }` or `{ problem }`.
 */
function toOutput(api, agent, request, warn) {
  if (request !== null && typeof request === 'object' && typeof request.prompt === 'string') {
    warnUnknownKeys('the request', request, warn);
    if (request.systemFlag != null && typeof request.systemFlag !== 'string') return { problem: `request.systemFlag must be a string, got ${describe(request.systemFlag)}` };
    return { output: { prompt: request.prompt, systemFlag: request.systemFlag ?? undefined } };
  }
  // A definition's prompt is laid out as its id says (plain text for an id the library does not know).
  const agentType = isDefinition(agent) ? agent.id : agent;
  if (typeof agentType !== 'string') return { output: { prompt: '' } }; // the core names what is wrong
  if (!isDefinition(agent) && !api.knownAgents().some((a) => a.agentType === agentType)) return { output: { prompt: '' } }; // the core names the known ones
  try {
    return { output: assembleFor(api, agentType, request, warn, isDefinition(agent)) };
  } catch (err) {
    if (err && err.name === 'AgentContextError') return { problem: `request: ${err.message}` };
    throw err;
  }
}

/** The command to find: `options.command`, else the registry's (`claude`, `codex`, `gemini`). */
function commandName(api, agentType, command) {
  if (command) return command;
  const agent = api.knownAgents().find((a) => a.agentType === agentType);
  return agent ? agent.command : '';
}

function writeFiles(files) {
  for (const file of files) {
    fs.mkdirSync(path.dirname(file.path), { recursive: true });
    fs.writeFileSync(file.path, file.content);
  }
}

/** The plan's output files (Copilot's usage file): none left from before, their folder there. */
function clearOutputs(outputs) {
  for (const output of outputs ?? []) {
    fs.mkdirSync(path.dirname(output.path), { recursive: true });
    fs.rmSync(output.path, { force: true });
  }
}

/** Hands what the agent wrote to the core, then removes it. */
function readOutputs(run, outputs) {
  for (const output of outputs ?? []) {
    let content;
    try {
      content = fs.readFileSync(output.path, 'utf8');
    } catch {
      continue; // not written (the agent failed before it could)
    }
    run.pushOutput(output.path, content);
    fs.rmSync(output.path, { force: true });
  }
}

/** The working directory's problem as the run's message, or null. */
function cdProblem(plan, cwd) {
  const problem = directoryProblem(cwd);
  if (!problem) return null;
  const why = problem === 'missing' ? 'does not exist' : problem === 'not_a_directory' ? 'is not a directory' : `cannot be used (${problem})`;
  return `options.cd ${why}: ${plan.cd}`;
}

/** Every attempt of one run, as the core decides. */
async function drive(run, plan, { signal, env, started, onEvent, failOnEvent }) {
  const cwd = path.resolve(plan.cd);
  const deadline = started + plan.maxDurationMs;
  const wantEvents = onEvent !== undefined;
  run.setEvents(wantEvents);
  for (let n = 0; n < plan.maxAttempts; n += 1) {
    if (signal?.aborted) return run.abort();
    run.startAttempt();
    clearOutputs(plan.outputs);
    const control = {};
    const end = await runProcess({
      file: plan.command,
      args: plan.args,
      stdin: plan.stdin,
      cwd,
      env,
      idleTimeoutMs: plan.idleTimeoutMs,
      deadline,
      signal,
      control,
      // The core decides what restarts the idle timer (not retry chatter).
      isProgress: (chunk) => run.isProgress(chunk),
      onStdout(chunk) {
        const events = run.pushStdout(chunk, wantEvents);
        if (run.overOwnRetries()) control.stop('own_retries');
        if (events === undefined) return;
        try {
          for (const event of events) onEvent(event);
        } catch (err) {
          failOnEvent(err);
          control.stop('aborted');
        }
      },
      onStderr: (chunk) => {
        run.pushStderr(chunk);
        // The core counts the agent's own retries; past maxRetries, stop.
        if (run.overOwnRetries()) control.stop('own_retries');
      },
    });
    readOutputs(run, plan.outputs);
    const gone = end.spawnError === 'ENOENT' && directoryProblem(cwd);
    if (gone) return run.reject(`options.cd does not exist: ${plan.cd}`);
    const wait = run.endAttempt(end.exitCode, end.signal, end.spawnError, end.stopped, Date.now() - started);
    if (wait === undefined) return;
    if (await sleep(wait, signal)) return run.abort();
  }
}

/**
 * Runs `agentType`'s CLI on `request` (an AssemblerInput or an
 * AssemblerOutput) and resolves the AgentRun; a problem with the request or
 * the options is an `invalid_params` run, never a rejection. Rejects (with
 * AgentContextError) only for options JS holds that are not what they must
 * be (`signal`, `onEvent`, `env`, `command`), or with what `onEvent` threw.
 * `finish(runner, durationMs)` (internal: the MCP tools') resolves what the
 * finished core runner is turned into instead of the AgentRun.
 */
async function runAgent(api, agentType, request, options, finish) {
  const known = typeof agentType === 'string' ? api.knownAgents().find((a) => a.agentType === agentType) : undefined;
  const { signal, onEvent, env, rest, acp } = hostOptions(options, isDefinition(agentType), known?.protocols[0] === 'acp');
  const started = Date.now();
  const Runner = loadRunner();
  const { output, problem: requestProblem } = toOutput(api, agentType, request, loggerOf(options));
  const problem = requestProblem;
  if (acp) {
    // Over the Agent Client Protocol: ./acp-run.cjs, required on first use.
    return require('./acp-run.cjs').runAcpAgent(agentType, options, { signal, onEvent, env, rest, output, problem, finish, warn: loggerOf(options) });
  }
  const command = commandName(api, agentType, rest.command);
  // The run's own folder: the long system prompt, Copilot's usage, the settings the run owns, images given as data.
  const scratch = runFolderName();
  if (rest.attachments != null && typeof rest.cd === 'string') {
    try {
      // Images given as data go to files in the run's folder (removed after).
      rest.attachments = materialize(rest.attachments, { cd: path.resolve(rest.cd), scratch: path.join(scratch, 'attachments') });
    } catch (err) {
      removeRunFolder(scratch);
      throw err;
    }
  }
  const run = new Runner(String(agentType), output ?? { prompt: '' }, { ...rest, systemPromptFile: path.join(scratch, 'system-prompt.md'), usageFile: path.join(scratch, 'usage.json'), settingsFile: path.join(scratch, 'settings.json'), runFolder: scratch }, command);
  let hostError;
  try {
    if (problem) run.reject(problem);
    let plan = run.plan();
    const badCd = plan && cdProblem(plan, path.resolve(plan.cd));
    if (badCd) run.reject(badCd);
    else if (plan && signal?.aborted) run.abort();
    else if (plan) {
      // Found and planned for this platform with the child's environment.
      const launch = await launchFor(String(agentType), plan.command, env);
      let childEnv = env;
      if (!launch.found) run.cannotLaunch(launch.kind === 'spawn_failed', launch.message);
      else {
        childEnv = Object.keys(launch.env).length ? { ...env, ...launch.env } : env;
        run.launch(launch.path, launch.file, launch.args, childEnv);
      }
      plan = run.plan();
      if (plan) {
        // The agent's home of the run's own, from the caller's environment.
        makeRunHome(plan.home, childEnv);
        // What the core adds for the agent (its own retries bounded).
        if (plan.env.length > 0) childEnv = { ...childEnv, ...Object.fromEntries(plan.env) };
        writeFiles(plan.files);
        await drive(run, plan, { signal, env: childEnv, started, onEvent, failOnEvent: (err) => (hostError ??= err) });
      }
    }
    if (hostError !== undefined) throw hostError;
    const duration = Date.now() - started;
    return finish ? finish(run, duration) : run.result(duration);
  } finally {
    removeRunFolder(scratch);
    run.free();
  }
}

module.exports = { runAgent, isDefinition, assembleFor };
