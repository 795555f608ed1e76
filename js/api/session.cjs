// openAgentSession, Node only: an agent kept open for many turns, over the
// Agent Client Protocol or over its own command line (`protocol: 'cli'`):
// the session engine (`__Engine`, src/engine/) started by ./run.cjs and
// driven by ./engine-host.cjs. Shipped as pkg/node/session.cjs; the Node
// entry requires it on the first call.
'use strict';

const { inputError, describe } = require('./agent-process.cjs');
const { startEngine, release, checkPermissionHandler, checkElicitationHandler } = require('./run.cjs');
const { readOutputSchema, answer } = require('./structured.cjs');
const { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem } = require('./option-check.cjs');
const { materialize } = require('./attachments.cjs');
const { SessionRecord, checkStore, takeRecord } = require('./session-record.cjs');

function checkFunction(value, name) {
  if (value != null && typeof value !== 'function') throw inputError(`${name} must be a function, got ${describe(value)}`);
  return value ?? undefined;
}

function checkSignal(signal, name) {
  if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) {
    throw inputError(`${name} must be an AbortSignal, got ${describe(signal)}`);
  }
  return signal ?? undefined;
}

/** An operation that failed (`{ kind, message }`), as an Error to throw. */
function agentError(failed) {
  const { AgentContextError } = require('./agent_context.js');
  const code = failed.kind === 'invalid_params' ? 'INVALID_INPUT' : 'AGENT_ERROR';
  const err = new AgentContextError(code, failed.message.replace(/^invalid parameters: /, ''));
  err.kind = failed.kind;
  err.retryable = failed.retryable;
  return err;
}

/** `request` as the prompt's content blocks. */
function blocksOf(api, agentType, request, warn, defined) {
  if (typeof request === 'string') return [{ type: 'text', text: request }];
  if (Array.isArray(request)) return request;
  if (request !== null && typeof request === 'object') {
    if (typeof request.prompt === 'string') {
      // The instructions of a later assembled prompt open it (the session's own are set when it opens).
      const text = request.systemFlag ? `${request.systemFlag}\n\n${request.prompt}` : request.prompt;
      return [{ type: 'text', text }];
    }
    return [{ type: 'text', text: require('./agent-run.cjs').assembleFor(api, agentType, request, warn, defined).prompt }];
  }
  throw inputError(`request must be a string, an AssemblerInput, an AssemblerOutput or an array of content blocks, got ${describe(request)}`);
}

/** Seconds, as the options take them, to milliseconds; `fallback` when not given. */
function seconds(value, name, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw inputError(`${name} must be a positive number of seconds, got ${describe(value)}`);
  return Math.round(value * 1000);
}

/**
 * Opens what `startEngine` started: `{ host, plan, opened }` (`opened`: the
 * engine's snapshot once open), or throws why not, with nothing left running.
 */
async function openStarted(started) {
  if (started.failed !== undefined) throw inputError(started.failed.replace(/^invalid parameters: /, ''));
  const { host, plan } = started;
  const opened = await host.run((now) => host.engine.input({ type: 'open' }, now));
  if (opened.failed) {
    await host.run((now) => host.engine.input({ type: 'close' }, now));
    await host.closedPromise; // an agent on another machine: cleaned up there too
    host.engine.free();
    throw agentError(opened.failed);
  }
  release(host);
  return { host, plan, opened: opened.opened };
}

/**
 * Opens a session with `agentType` (an agent type, an AgentDefinition or an
 * ACP registry entry) over ACP and resolves an AgentSession
 * once the agent is started and the session is open. `options` are
 * runAgent's (`cd` required) plus `systemPrompt`, `mcpServers`,
 * `onPermission`, `onUpdate`. `member` (internal, AgentTeam's): `{ teamId,
 * memberId }`, the team whose member the session is, for its record.
 */
async function openAgentSession(api, agentType, options, member) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object, got ${describe(options)}`);
  const onPermission = checkPermissionHandler(options);
  const onElicitation = checkElicitationHandler(options);
  const onUpdate = checkFunction(options.onUpdate, 'options.onUpdate');
  const warn = loggerOf(options);
  warnUnknownKeys('openAgentSession options', options, warn);
  warnEndpointKeys(options, warn);
  const { env: givenEnv, signal: _s, onEvent: _e, onPermission: _p, onUpdate: _u, onElicitation: _el, logger: _l, store: givenStore, rebuild, fallback, ...rest } = options;
  const store = checkStore(givenStore, 'options.store');
  if (rebuild != null && typeof rebuild !== 'boolean') throw inputError(`options.rebuild must be a boolean, got ${describe(rebuild)}`);
  if (fallback != null) return require('./session-carry.cjs').withFallback(api, agentType, options);
  if (givenEnv != null && (typeof givenEnv !== 'object' || Array.isArray(givenEnv))) throw inputError(`options.env must be an object, got ${describe(givenEnv)}`);
  const badEnv = givenEnv != null && envProblem(givenEnv, 'options.env');
  if (badEnv) throw inputError(badEnv);
  if (rest.protocol != null && rest.protocol !== 'acp' && rest.protocol !== 'cli') {
    throw inputError(`options.protocol must be 'acp' or 'cli', got ${JSON.stringify(rest.protocol)}`);
  }
  const protocol = rest.protocol ?? 'acp';
  let env = givenEnv ?? process.env;
  if (protocol === 'cli') {
    // Over the CLI the trace context reaches each process in its environment.
    if (rest.terminals === true) throw inputError("options.terminals: client terminals are served over ACP only (protocol: 'acp')");
    if (rest.traceparent != null) env = { ...env, TRACEPARENT: require('./agent_context_node.js').__checkTraceparent(rest.traceparent, 'options.traceparent') };
  }
  let hostError = null;
  // A session restored from the store: its record is taken (a lock) before its agent starts.
  const agentName = typeof agentType === 'string' ? agentType : String(agentType?.id ?? agentType?.name ?? 'agent');
  const taken = store && rest.sessionId != null ? await takeRecord(store, String(rest.sessionId), agentName) : undefined;
  const start = (opts) => startEngine(agentType, opts, { env, onPermission, onElicitation, onUpdate, onHostError: (err) => (hostError ??= err), warn });
  let started;
  let rebuilt;
  try {
    started = await openStarted(await start(rest));
  } catch (err) {
    // An agent that cannot resume: a new session carrying the recorded conversation.
    if (!(rebuild === true && err?.kind === 'session_not_found' && taken?.writer)) {
      await taken?.writer?.close();
      throw err;
    }
    const { sessionId: _old, ...fresh } = rest;
    try {
      started = await openStarted(await start(fresh));
    } catch (again) {
      await taken.writer?.close();
      throw again;
    }
    rebuilt = taken;
  }
  const { host, plan, opened } = started;
  const secrets = secretsOf(givenEnv, rest.endpoint);
  const record = new SessionRecord({ store, writer: rebuilt ? undefined : taken?.writer, prior: rebuilt ? '' : (taken?.prior ?? ''), warn });
  host.records.set(0, record);
  host.feed((e, now) => e.record(0, record.text ? Buffer.from(record.text) : undefined, secrets, now, member?.teamId, member?.memberId));
  const session = makeSession(api, host, plan, {
    defined: agentType !== null && typeof agentType === 'object',
    protocol,
    persistent: protocol === 'acp' || plan.persistent === true,
    snapshot: opened,
    sessionTrace: rest.traceparent ?? undefined,
    warn,
    takeHostError: () => {
      const err = hostError;
      hostError = null;
      return err;
    },
    record,
    secrets,
    reopen: (overrides) => openAgentSession(api, agentType, { ...options, sessionId: undefined, rebuild: undefined, fallback: undefined, ...overrides }),
  });
  session.__carry.options = options;
  if (rebuilt) await require('./session-carry.cjs').carryInto(session, rebuilt, 'rebuilt');
  return session;
}

/** Values never written in a record: the endpoint's key and headers, the environment given. */
function secretsOf(env, endpoint) {
  const values = [];
  for (const v of Object.values(env ?? {})) if (typeof v === 'string') values.push(v);
  if (endpoint && typeof endpoint === 'object') {
    if (typeof endpoint.apiKey === 'string') values.push(endpoint.apiKey);
    for (const v of Object.values(endpoint.headers ?? {})) if (typeof v === 'string') values.push(v);
  }
  return values;
}

/**
 * An AgentSession on a started engine. `defined`: opened with an agent
 * definition or registry entry rather than a type. `key`: the session's on an engine of
 * several (openAgent), undefined for the engine's only one; its `close()`
 * closes that session only, the only one's the process too.
 */
function makeSession(api, host, plan, { defined, protocol, persistent, snapshot: opened, warn, takeHostError, key, sessionTrace, record, reopen, secrets }) {
  let snapshot = opened;
  // What the next turn carries (a rebuilt, handed-off or forked session's first): `{ messages, linkBack }`.
  let carry = null;
  let closed = false;
  const gone = () => host.closed || closed;
  const refresh = () => {
    if (gone()) return;
    snapshot = key === undefined ? host.engine.snapshot() : (host.engine.snapshotOf(key) ?? snapshot);
  };

  const session = {
    get sessionId() {
      return snapshot.sessionId ?? undefined;
    },
    /** The agent type, or the id of the agent definition it was opened with. */
    agentType: plan.agentType,
    protocol,
    /** One process for every turn (ACP; Claude Code over its CLI), else a process per turn. */
    persistent,
    get capabilities() {
      return snapshot.capabilities ?? {};
    },
    get authMethods() {
      return snapshot.authMethods ?? [];
    },
    get modes() {
      return snapshot.modes ?? [];
    },
    get mode() {
      return snapshot.mode ?? undefined;
    },
    get configOptions() {
      return snapshot.configOptions ?? [];
    },
    get models() {
      return snapshot.models ?? [];
    },
    get model() {
      return snapshot.model ?? undefined;
    },
    get commands() {
      return snapshot.commands ?? [];
    },
    /** One turn; a prompt while one runs waits for it. Resolves an AgentTurn. */
    async prompt(request, turn = {}) {
      open_();
      if (turn === null || typeof turn !== 'object') throw inputError(`turn must be an object, got ${describe(turn)}`);
      warnUnknownKeys("the turn's options", turn, warn);
      if (request !== null && typeof request === 'object' && !Array.isArray(request) && typeof request.prompt === 'string') warnUnknownKeys('the request', request, warn);
      const onEvent = checkFunction(turn.onEvent, 'turn.onEvent');
      const signal = checkSignal(turn.signal, 'turn.signal');
      // A problem with the request or the turn's limits is the turn's
      // failure (invalid_params), as runAgent's run is; a value only
      // JavaScript holds of the wrong type throws (above).
      let blocks;
      let limits;
      let attachments;
      let schema;
      let traceparent;
      let context;
      try {
        if (carry) ({ request, context } = require('./session-carry.cjs').carried(plan.agentType, carry.messages, request, warn, carry.compacted));
        blocks = blocksOf(api, plan.agentType, request, warn, defined);
        // A turn's schema is stated in its prompt (the process's command line is the session's).
        schema = readOutputSchema(turn.outputSchema, plan.agentType, 'session', 'turn.outputSchema');
        if (turn.traceparent != null) traceparent = require('./agent_context_node.js').__checkTraceparent(turn.traceparent, 'turn.traceparent');
        limits = {
          idleMs: seconds(turn.timeout, 'turn.timeout', plan.idleTimeoutMs),
          maxMs: seconds(turn.maxDuration, 'turn.maxDuration', plan.maxDurationMs),
          maxRetries: plan.maxRetries,
          events: onEvent !== undefined,
        };
        // The turn's attachments, after the prompt (read from disk here; the core checks them).
        attachments =
          turn.attachments == null
            ? undefined
            : host.channel // an agent on another machine: paths are that side's
              ? await require('./remote-start.cjs').attachmentsThere(host.channel, turn.attachments, plan.cd, null)
              : materialize(turn.attachments, { cd: require('node:path').resolve(plan.cd), scratch: null });
      } catch (err) {
        schema?.free();
        if (err?.name !== 'AgentContextError') throw err;
        const { __RunResult } = require('./agent_context_node.js');
        const refused = __RunResult.invalid(plan.agentType, err.message);
        try {
          return refused.toRun(0);
        } finally {
          refused.free();
        }
      }
      let op;
      const onAbort = () => host.feed((e, now) => e.input({ type: 'abort', op }, now));
      // The schema goes with the prompt's last text (a block of its own when it has none).
      const at = blocks.map((b) => b?.type).lastIndexOf('text');
      const blocksWith = (text) => (at >= 0 ? blocks.map((b, i) => (i === at ? { ...b, text } : b)) : text ? [...blocks, { type: 'text', text }] : blocks);
      const send = async (text, turnTrace, n) => {
        const done = await host.run((now) => {
          const sent = n === 0 ? blocksWith(text) : [{ type: 'text', text }];
          if (n === 0 && context) host.engine.input({ type: 'recordNextAs', session: key ?? 0, text: context.userText }, now);
          op = host.engine.prompt(sent, { ...limits, traceparent: turnTrace }, now, key, n === 0 ? attachments : undefined);
          if (signal?.aborted) host.engine.input({ type: 'abort', op }, now);
          else signal?.addEventListener('abort', onAbort, { once: true });
          return op;
        }, onEvent);
        signal?.removeEventListener('abort', onAbort);
        const err = takeHostError();
        if (err) throw err;
        return done.turn;
      };
      const trace = { agent: plan.agentType, model: snapshot.model ?? undefined, traceparent: traceparent ?? sessionTrace };
      const result = await answer({ schema, text: at >= 0 ? blocks[at].text : '', send, trace, maxRetries: plan.maxRetries, sessionCost: protocol === 'acp' });
      refresh();
      if (context) {
        const { userText: _u, ...shown } = context;
        result.context = shown;
        // The link back once the session's id is known (over a CLI: its
        // first turn); the conversation is carried until a turn succeeds.
        const linkBack = carry?.linkBack;
        if (linkBack && session.sessionId) {
          carry.linkBack = undefined;
          await linkBack(session.sessionId);
        }
        if (result.success) carry = null;
      }
      return result;
    },
    /**
     * A new session on the same process holding this one's history (ACP
     * `session/fork`, where the agent advertises it; `INVALID_INPUT`
     * otherwise). Its `forkedFrom` names this session.
     */
    async fork(options = {}) {
      open_();
      if (options === null || typeof options !== 'object') throw inputError(`fork options must be an object, got ${describe(options)}`);
      const turns = record ? record.history().entries.filter((e) => e.kind === 'request').length : 0;
      const atTurn = options.atTurn ?? undefined;
      if (atTurn !== undefined && (!Number.isInteger(atTurn) || atTurn < 1 || atTurn > turns)) {
        throw inputError(`fork: options.atTurn must be a turn of this session (1 to ${turns}), got ${describe(atTurn)}`);
      }
      const caps = Object.keys(snapshot.capabilities ?? {}).length > 0 ? snapshot.capabilities : host.engine.processInfo()?.capabilities;
      const forksItself = protocol === 'acp' && caps?.sessionCapabilities?.fork != null;
      if (!forksItself || (atTurn !== undefined && atTurn < turns)) {
        // The agent's own fork shares its whole history: up to an earlier turn, or without one, a session rebuilt from the record.
        if (!reopen || !record) throw inputError(`fork: ${plan.agentName} does not fork sessions, and this session has no record to rebuild one from`);
        return require('./session-carry.cjs').forkFromRecord(session, atTurn);
      }
      const next = host.engine.addSession({});
      const done = await host.run((now) => host.engine.input({ type: 'forkSession', source: key ?? 0, session: next }, now));
      if (done.failed) {
        await host.run((now) => host.engine.input({ type: 'closeSession', session: next }, now));
        throw agentError(done.failed);
      }
      let forkRecord;
      if (record) {
        forkRecord = new SessionRecord({ store: record.store, warn });
        host.records.set(next, forkRecord);
        host.feed((e, now) => {
          e.record(next, undefined, secrets ?? [], now);
          e.input({ type: 'recordLink', session: next, relation: 'forkedFrom', id: session.sessionId ?? '', agentType: plan.agentType }, now);
        });
      }
      const forked = makeSession(api, host, plan, { defined, protocol, persistent, snapshot: done.opened, warn, takeHostError, key: next, sessionTrace, record: forkRecord, secrets });
      forked.forkedFrom = session.sessionId;
      if (record && forked.sessionId) session.__carry.link('forkedTo', forked.sessionId, plan.agentType);
      return forked;
    },
    async setMode(id) {
      return simple((now) => host.engine.input({ type: 'setMode', id: String(id), session: key }, now));
    },
    async setConfigOption(id, value) {
      return simple((now) => host.engine.input({ type: 'setConfigOption', id: String(id), value, session: key }, now));
    },
    async setModel(id) {
      return simple((now) => host.engine.input({ type: 'setModel', id: String(id), session: key }, now));
    },
    async authenticate(methodId) {
      return simple((now) => host.engine.input({ type: 'authenticate', method: String(methodId) }, now));
    },
    /** The running turn ends `aborted` (stopReason `cancelled`). */
    async cancel() {
      if (gone()) return;
      host.feed((e, now) => e.input({ type: 'cancel', session: key }, now));
    },
    /** The session, then (its only one) its process tree; its record let go. */
    async close() {
      if (gone()) return record?.close();
      if (key !== undefined) {
        await host.run((now) => host.engine.input({ type: 'closeSession', session: key }, now));
        closed = true;
        return record?.close();
      }
      await host.run((now) => host.engine.input({ type: 'close' }, now));
      await host.closedPromise;
      return record?.close();
    },
    /** The session's record: `{ entries, cursor }` after `after` (0: all), at most `limit`. */
    history(options) {
      if (!record) throw inputError('history: this session is not recorded');
      return record.history(options);
    },
    /** Calls `onEntry` with each record entry after `after`, now and as they come; returns `unwatch()`. */
    watch(options, onEntry) {
      if (!record) throw inputError('watch: this session is not recorded');
      return record.watch(options, onEntry);
    },
    /** A new session on `agent` whose first turn carries this conversation. */
    async handoff(agent, options) {
      open_();
      return require('./session-carry.cjs').handoff(api, session, agent, options);
    },
  };
  Object.defineProperty(session, '__carry', {
    value: {
      plan,
      record,
      reopen,
      set: (next) => (carry = next),
      link: (relation, id, agentType) => !gone() && host.feed((e, now) => e.input({ type: 'recordLink', session: key ?? 0, relation, id, agentType }, now)),
    },
  });

  /** Operations after close() are refused (the engine is gone). */
  function open_() {
    if (gone()) throw inputError(`the session with ${plan.agentName} is closed`);
  }

  async function simple(start) {
    open_();
    const done = await host.run(start);
    refresh();
    if (done.failed) throw agentError(done.failed);
  }
  return session;
}

module.exports = { openAgentSession, openStarted, makeSession, agentError, describe, checkFunction, secretsOf };
