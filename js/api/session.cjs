// openAgentSession and openConversation, Node only: an AgentSession is the
// live end of a conversation (./conversation.cjs, decided by the core's
// machine): its turns, its agent session's modes and options, its record.
// Shipped as pkg/node/session.cjs; the Node entry requires it on the first call.
'use strict';

const { inputError, describe } = require('../host/agent-process.cjs');
const { checkPermissionHandler, checkElicitationHandler } = require('./run.cjs');
const { loggerOf, warnUnknownKeys, warnEndpointKeys, envProblem } = require('../host/option-check.cjs');
const { checkStore } = require('../record/record-writer.cjs');
const { Conversation, agentError } = require('./conversation.cjs');
const records = () => require('../record/conversations.cjs');
const node = () => require('../core/agent_context_node.cjs');

function checkFunction(value, name) {
  if (value != null && typeof value !== 'function') throw inputError(`${name} must be a function, got ${describe(value)}`);
  return value ?? undefined;
}

/** Values never written in a record: the endpoint's key and headers, the environment given. */
function secretsOf(env, endpoint) {
  const values = Object.values(env ?? {}).filter((v) => typeof v === 'string');
  if (endpoint && typeof endpoint === 'object') {
    if (typeof endpoint.apiKey === 'string') values.push(endpoint.apiKey);
    for (const v of Object.values(endpoint.headers ?? {})) if (typeof v === 'string') values.push(v);
  }
  return values;
}

/** `options` checked: what JS holds (`host`) and what the core reads (`rest`). */
function readOptions(options, what) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object, got ${describe(options)}`);
  const warn = loggerOf(options);
  warnUnknownKeys(what, options, warn);
  warnEndpointKeys(options, warn);
  const { env, signal: _s, onEvent: _e, onPermission: _p, onUpdate: _u, onElicitation: _el, logger: _l, store, rebuild, ...rest } = options;
  if (rebuild != null && typeof rebuild !== 'boolean') throw inputError(`options.rebuild must be a boolean, got ${describe(rebuild)}`);
  if (env != null && (typeof env !== 'object' || Array.isArray(env))) throw inputError(`options.env must be an object, got ${describe(env)}`);
  const badEnv = env != null && envProblem(env, 'options.env');
  if (badEnv) throw inputError(badEnv);
  if (rest.protocol != null && rest.protocol !== 'acp' && rest.protocol !== 'cli') throw inputError(`options.protocol must be 'acp' or 'cli', got ${JSON.stringify(rest.protocol)}`);
  let childEnv = env ?? process.env;
  if (rest.protocol === 'cli') {
    if (rest.terminals === true) throw inputError("options.terminals: client terminals are served over ACP only (protocol: 'acp')");
    // Over the CLI the trace context reaches each process in its environment.
    if (rest.traceparent != null) childEnv = { ...childEnv, TRACEPARENT: node().__checkTraceparent(rest.traceparent, 'options.traceparent') };
  }
  const host = {
    env: childEnv,
    onPermission: checkPermissionHandler(options),
    onElicitation: checkElicitationHandler(options),
    onUpdate: checkFunction(options.onUpdate, 'options.onUpdate'),
    warn,
    secrets: secretsOf(env, rest.endpoint),
    store: checkStore(store, 'options.store'),
    traceparent: rest.traceparent ?? undefined,
    base: rest,
  };
  return { host, rest, rebuild: rebuild === true };
}

/** Opens `machine`'s live part and resolves the AgentSession over it; nothing is left open when it fails. */
async function opened(api, machine, host) {
  const conv = new Conversation(machine, host);
  try {
    await conv.until({ type: 'start' });
  } catch (err) {
    await conv.close().catch(() => {});
    throw err;
  }
  return makeSession(api, conv);
}

/**
 * Opens a conversation with `agent` (an agent type, an AgentDefinition or
 * an ACP registry entry); with `store` and `sessionId`, the conversation
 * that agent session is the live end of (`SESSION_MOVED` when it is not).
 * `member` (internal, AgentTeam's): `{ teamId, memberId, conversationId?, hostCarries }`.
 */
async function openAgentSession(api, agent, options, member) {
  const { host, rest, rebuild } = readOptions(options, 'openAgentSession options');
  const setup = { id: require('node:crypto').randomUUID(), createdAt: Date.now(), agent, options: rest, rebuild, hostCarries: member?.hostCarries === true, teamId: member?.teamId, memberId: member?.memberId };
  const asked = rest.sessionId != null ? String(rest.sessionId) : undefined;
  const at = host.store && (member?.conversationId ?? (asked && (await records().findConversation(host.store, asked))?.conversationId));
  if (!at) return opened(api, new (node().__Conversation)(setup), host);
  return reopen(api, host, setup, at, member?.conversationId ? undefined : asked);
}

/** Conversation `id` of `store` reopened at its live end (its writer taken before its agent starts). */
async function reopen(api, host, setup, id, asked) {
  const { bytes, writer } = await records().takeConversation(host.store, id);
  let machine;
  try {
    machine = node().__Conversation.restore(setup, bytes, asked, Date.now());
  } catch (err) {
    await writer?.close();
    throw err;
  }
  return opened(api, machine, { ...host, writer: machine.id === id ? writer : (await writer?.close(), undefined) });
}

/** The live end of conversation `conversationId` of `store`, with `options` (its agent: `options.agent`, else the one its record names). */
async function openConversation(api, store, conversationId, options = {}) {
  checkStore(store, 'store');
  if (store == null) throw inputError(`store must be a session store, got ${describe(store)}`);
  if (typeof conversationId !== 'string' || conversationId === '') throw inputError(`conversationId must be a non-empty string, got ${describe(conversationId)}`);
  const { agent = null, ...given } = options ?? {};
  const { host, rest, rebuild } = readOptions({ cd: process.cwd(), ...given, store }, 'openConversation options');
  return reopen(api, host, { id: require('node:crypto').randomUUID(), createdAt: Date.now(), agent, options: rest, rebuild }, conversationId);
}

/** The AgentSession over `conv`'s live end; `moved()` once a handoff took the conversation elsewhere. */
function makeSession(api, conv) {
  let moved = false;
  // The part this session was the live end of, once a handoff moved on:
  // its agent, session id, modes… stay what they were.
  let own = null;
  const part = () => (moved ? own : conv.part);
  const snap = () => part()?.snapshot ?? {};
  const live = () => {
    if (moved) {
      const { sessionId, agentType } = session.handedOffTo;
      const err = new api.AgentContextError('SESSION_MOVED', `the conversation moved to ${agentType} (session ${sessionId}): use the session handoff returned`);
      err.details = { conversationId: conv.machine.id, sessionId, agentType };
      throw err;
    }
    if (!part() || part().host.closed) throw inputError(`the session with ${session.agentType} is closed`);
    return part();
  };
  const simple = async (input) => {
    const { host, key } = live();
    const done = await host.run((now) => host.engine.input({ ...input, session: key }, now));
    const p = part();
    p.snapshot = key === undefined ? host.engine.snapshot() : (host.engine.snapshotOf(key) ?? p.snapshot);
    if (done.failed) throw agentError(done.failed);
  };
  const session = {
    conversationId: conv.machine.id,
    get sessionId() { return snap().sessionId ?? undefined; },
    get agentType() { return part()?.plan.agentType ?? conv.machine.live()?.agentType; },
    get protocol() { return part()?.plan.protocol ?? 'acp'; },
    /** One process for every turn (ACP; Claude Code over its CLI), else a process per turn. */
    get persistent() { return part()?.plan.protocol === 'acp' || part()?.plan.persistent === true; },
    get capabilities() { return snap().capabilities ?? {}; },
    get authMethods() { return snap().authMethods ?? []; },
    get modes() { return snap().modes ?? []; },
    get mode() { return snap().mode ?? undefined; },
    get configOptions() { return snap().configOptions ?? []; },
    get models() { return snap().models ?? []; },
    get model() { return snap().model ?? undefined; },
    get commands() { return snap().commands ?? []; },
    /** Lines of the record the store has not taken yet. */
    get unwritten() { return conv.record.unwritten; },
    async prompt(request, turn = {}) {
      live();
      if (turn === null || typeof turn !== 'object') throw inputError(`turn must be an object, got ${describe(turn)}`);
      const warn = conv.host.warn;
      warnUnknownKeys("the turn's options", turn, warn);
      if (request !== null && typeof request === 'object' && !Array.isArray(request) && typeof request.prompt === 'string') warnUnknownKeys('the request', request, warn);
      checkFunction(turn.onEvent, 'turn.onEvent');
      const { signal } = turn;
      if (signal != null && (typeof signal !== 'object' || typeof signal.addEventListener !== 'function' || typeof signal.aborted !== 'boolean')) throw inputError(`turn.signal must be an AbortSignal, got ${describe(signal)}`);
      return conv.prompt(request, turn);
    },
    /** A new conversation holding this one up to `atTurn` (the last by default), on this agent or `agent`. */
    async fork(options = {}) {
      live();
      return require('./fork.cjs').fork(api, conv, session, options, opened);
    },
    setMode: (id) => simple({ type: 'setMode', id: String(id) }),
    setConfigOption: (id, value) => simple({ type: 'setConfigOption', id: String(id), value }),
    setModel: (id) => simple({ type: 'setModel', id: String(id) }),
    authenticate: (methodId) => simple({ type: 'authenticate', method: String(methodId) }),
    /** The running turn ends `aborted` (stopReason `cancelled`). */
    async cancel() {
      const p = part();
      if (!moved && p && !p.host.closed) p.host.feed((e, now) => e.input({ type: 'cancel', session: p.key }, now));
    },
    /** The agent's session (its process too), then the record let go: rejects with the store's error when lines are left unwritten. */
    async close() {
      if (!moved) await conv.close();
    },
    /** Resolves once the store holds every entry; rejects with its error. */
    flush: () => conv.record.flush(),
    history: (options) => conv.history(options),
    watch: (options, onEntry) => conv.watch(options, onEntry),
    /** The conversation moved to `agent`: the session returned is its live end, this one refuses SESSION_MOVED. */
    async handoff(agent, options = {}) {
      live();
      if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError('handoff: options must be an object');
      const before = conv.part;
      await conv.until({ type: 'handoff', agent, options });
      const next = makeSession(api, conv);
      session.handedOffTo = { agentType: next.agentType, sessionId: next.sessionId };
      own = before;
      moved = true;
      return next;
    },
  };
  Object.defineProperty(session, '__conversation', { value: conv });
  return session;
}

module.exports = { openAgentSession, openConversation, makeSession, opened, secretsOf, readOptions, checkFunction };
