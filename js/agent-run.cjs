// runAgent, Node only. Shipped as pkg/node/agent-run.cjs; the
// Node entry requires it on the first call (scripts/finish-pkg.mjs).
//
// Every decision is the core's: over the agent's command line (the
// default) a session of the CLI session engine opened for one prompt
// (./cli-run.cjs, `__CliEngine`, src/engine/cli/), over the Agent Client
// Protocol one of the ACP engine (./acp-run.cjs, `__Engine`, src/engine/),
// both driven by ./engine-host.cjs. Those classes live in the Node-only
// second WebAssembly module (pkg/node/agent_context_node.js, built
// with the crate's `gemini-tool` feature), compiled on the first call. This
// file checks the options only JS holds and assembles an AssemblerInput
// with the main module's `assemble`.
'use strict';

const { inputError } = require('./agent-process.cjs');
const { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem } = require('./option-check.cjs');
const { readOutputSchema } = require('./structured.cjs');


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
  if (!acp) {
    // ACP only.
    delete rest.onPermission;
    delete rest.onElicitation;
  }
  return { signal: signal ?? undefined, onEvent: onEvent ?? undefined, env: env ?? process.env, rest, acp };
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

/**
 * Runs `agentType`'s CLI on `request` (an AssemblerInput or an
 * AssemblerOutput) and resolves the AgentRun; a problem with the request or
 * the options is an `invalid_params` run, never a rejection. Rejects (with
 * AgentContextError) only for options JS holds that are not what they must
 * be (`signal`, `onEvent`, `env`, `command`), or with what `onEvent` threw.
 * `finish(result, durationMs)` (internal: the MCP tools') resolves what the
 * run's result (`__RunResult` over the CLI, the engine over ACP) is turned
 * into instead of the AgentRun.
 */
async function runAgent(api, agentType, request, options, finish) {
  const known = typeof agentType === 'string' ? api.knownAgents().find((a) => a.agentType === agentType) : undefined;
  const { signal, onEvent, env, rest, acp } = hostOptions(options, isDefinition(agentType), known?.protocols[0] === 'acp');
  const started = Date.now();
  const { output, problem } = toOutput(api, agentType, request, loggerOf(options));
  if (acp) {
    // Over the Agent Client Protocol: ./acp-run.cjs, required on first use.
    return require('./acp-run.cjs').runAcpAgent(agentType, options, { signal, onEvent, env, rest, output, problem, finish, warn: loggerOf(options) });
  }
  const { runOverCli } = require('./cli-run.cjs');
  let hostError;
  const onHostError = (err) => (hostError ??= err);
  const RunResult = () => require('./agent_context_node.js').__RunResult;
  if (finish) {
    const result = problem ? RunResult().invalid(String(agentType), problem) : await runOverCli(String(agentType), output, rest, { signal, onEvent, env, onHostError });
    try {
      if (hostError !== undefined) throw hostError;
      // `finish` (internal: the MCP tools') turns the result into their envelope.
      return finish(result, Date.now() - started);
    } finally {
      result.free();
    }
  }
  const plan = cliAnswer(agentType, rest);
  const turnProblem = problem ?? plan.problem;
  if (turnProblem) plan.schema?.free();
  let sessionOfRun;
  // Turn `n` of the run's answer: the first with the run's options, a
  // corrective one on the session the first opened; the trace context in
  // the agent's environment.
  const send = async (text, traceparent, n) => {
    const options = n === 0 ? rest : { ...rest, sessionId: sessionOfRun, attachments: undefined };
    const childEnv = traceparent ? { ...env, TRACEPARENT: traceparent } : env;
    const turnStarted = Date.now();
    const result = turnProblem
      ? RunResult().invalid(String(agentType), turnProblem)
      : await runOverCli(String(agentType), { ...output, prompt: text }, options, { signal, onEvent, env: childEnv, onHostError });
    try {
      if (hostError !== undefined) throw hostError;
      const run = result.toRun(Date.now() - (n === 0 ? started : turnStarted));
      sessionOfRun = run.sessionId ?? sessionOfRun;
      return run;
    } finally {
      result.free();
    }
  };
  const { answer } = require('./structured.cjs');
  return answer({ schema: turnProblem ? undefined : plan.schema, text: output?.prompt ?? '', send, trace: plan.trace, maxRetries: rest.maxRetries });
}

/**
 * What a run over the CLI answers with: the schema (`outputSchema`, the
 * agent's own way where its CLI has one), the trace context, and `problem`:
 * what is wrong with either, or with `terminals` (an ACP feature).
 */
function cliAnswer(agentType, rest) {
  let schema;
  let traceparent;
  let problem;
  try {
    if (rest.terminals === true) throw inputError("options.terminals: client terminals are served over ACP only (protocol: 'acp')");
    if (rest.traceparent != null) traceparent = require('./agent_context_node.js').__checkTraceparent(rest.traceparent, 'options.traceparent');
    schema = readOutputSchema(rest.outputSchema, agentType, 'cli', 'options.outputSchema');
  } catch (err) {
    if (!(err && err.name === 'AgentContextError')) throw err;
    problem = err.message;
  }
  return { schema, problem, trace: { agent: String(agentType), model: rest.model, traceparent } };
}

module.exports = { runAgent, isDefinition, assembleFor };
