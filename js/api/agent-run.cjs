// runAgent, Node only. Shipped as pkg/node/agent-run.cjs; the
// Node entry requires it on the first call (scripts/finish-pkg.mjs).
//
// Every decision is the core's: a run is the session engine made for one
// prompt over the protocol the core chooses (the agent's command line or
// the Agent Client Protocol), driven by ./run.cjs and ../host/engine-host.cjs.
// The engine lives in the Node-only second WebAssembly module
// (pkg/node/agent_context_node.js), compiled on the first call. This file
// checks the options only JS holds and assembles an AssemblerInput with the
// main module's `assemble`.
'use strict';

const { inputError, describe } = require('../host/agent-process.cjs');
const { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem } = require('../host/option-check.cjs');

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

/** The options only JS can hold, checked; the rest goes to the core. */
function hostOptions(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw inputError(`options must be an object, got ${describe(options)}`);
  }
  const { signal, onEvent, env, command, onPermission, onElicitation } = options;
  if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) {
    throw inputError(`options.signal must be an AbortSignal, got ${describe(signal)}`);
  }
  if (onEvent != null && typeof onEvent !== 'function') {
    throw inputError(`options.onEvent must be a function, got ${describe(onEvent)}`);
  }
  if (onPermission != null && typeof onPermission !== 'function') {
    throw inputError(`options.onPermission must be a function, got ${describe(onPermission)}`);
  }
  if (onElicitation != null && typeof onElicitation !== 'function') {
    throw inputError(`options.onElicitation must be a function, got ${describe(onElicitation)}`);
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
  const { signal: _s, onEvent: _o, env: _e, logger: _l, onPermission: _p, onElicitation: _el, store: givenStore, ...rest } = options;
  const store = require('../record/record-writer.cjs').checkStore(givenStore, 'options.store');
  return { signal: signal ?? undefined, onEvent: onEvent ?? undefined, onPermission: onPermission ?? undefined, onElicitation: onElicitation ?? undefined, env: env ?? process.env, givenEnv: env, store, rest };
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
 * Runs `agentType` on `request` (an AssemblerInput or an AssemblerOutput)
 * and resolves the AgentRun; a problem with the request or the options is
 * an `invalid_params` run, never a rejection. Rejects (with
 * AgentContextError) only for options JS holds that are not what they must
 * be (`signal`, `onEvent`, `onPermission`, `env`, `command`), or with what a
 * callback threw. `finish(result, durationMs)` (internal: the MCP tools')
 * resolves what the run's `__RunResult` is turned into instead of the
 * AgentRun.
 */
async function runAgent(api, agentType, request, options, finish) {
  const { signal, onEvent, onPermission, onElicitation, env, givenEnv, store, rest } = hostOptions(options);
  const started = Date.now();
  const warn = loggerOf(options);
  const { output, problem: requestProblem } = toOutput(api, agentType, request, warn);
  const { runOnce, agentArg } = require('./run.cjs');
  const core = require('../core/agent_context_node.cjs');
  const { schema, trace, problem } = requestProblem ? { problem: requestProblem } : answerPlan(core, agentArg(agentType), rest);
  let hostError;
  const refused = () => core.__RunResult.invalid(agentArg(agentType), problem);
  const host = { signal, onEvent, env, onPermission, onElicitation, warn, onHostError: (err) => (hostError ??= err), store, givenEnv };
  if (finish || problem) {
    // `finish` (internal: the MCP tools') turns the one turn's result into their envelope.
    schema?.free();
    const result = problem ? refused() : await runOnce(agentType, output, rest, host);
    try {
      if (hostError !== undefined) throw hostError;
      const duration = Date.now() - started;
      return finish ? finish(result, duration) : result.toRun(duration);
    } finally {
      result.free();
    }
  }
  // The run's turns: one, or with outputSchema the corrective ones the core
  // asks for, each in its span when the app traces.
  const { answer } = require('./structured.cjs');
  const turns = async (send) => {
    const run = await answer({
      schema,
      text: output.prompt,
      trace,
      maxRetries: rest.maxRetries,
      sessionCost: trace.acp,
      send: async (text, traceparent, n) => {
        const turnStarted = Date.now();
        const result = await send(text, traceparent, n);
        try {
          if (hostError !== undefined) throw hostError;
          // The turn with its stop reason (its span names it); the run resolves none.
          return result.toTurn(Date.now() - (n === 0 ? started : turnStarted));
        } finally {
          result.free();
        }
      },
    });
    delete run.stopReason;
    return run;
  };
  return runOnce(agentType, output, rest, { ...host, answer: turns });
}

/**
 * What a run answers with: the schema (`outputSchema`, read for the
 * protocol the run goes over), the trace context, and `problem`: what is
 * wrong with either, or with `terminals` over the CLI.
 */
function answerPlan(core, agent, rest) {
  const protocol = core.__Engine.runProtocol(agent, rest);
  let schema;
  try {
    if (rest.terminals === true && protocol === 'cli') throw inputError("options.terminals: client terminals are served over ACP only (protocol: 'acp')");
    const traceparent = rest.traceparent == null ? undefined : core.__checkTraceparent(rest.traceparent, 'options.traceparent');
    schema = require('./structured.cjs').readOutputSchema(rest.outputSchema, agent, protocol, 'options.outputSchema');
    return { schema, trace: { agent: typeof agent === 'string' ? agent : agent.id, model: rest.model, traceparent, acp: protocol === 'acp' } };
  } catch (err) {
    schema?.free();
    if (!(err && err.name === 'AgentContextError')) throw err;
    return { problem: err.message };
  }
}

module.exports = { runAgent, isDefinition, assembleFor };
