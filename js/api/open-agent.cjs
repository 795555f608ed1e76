// openAgent, Node only: one agent process over the Agent Client Protocol
// holding several sessions (`__Engine` made for the process, src/engine/,
// driven by ../host/engine-host.cjs). Each session is an AgentSession
// (./session.cjs) addressed to the engine by its key. Shipped as
// pkg/node/open-agent.cjs; the Node entry requires it on the first call.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { inputError, directoryProblem } = require('../host/agent-process.cjs');
const { startEngine, checkPermissionHandler, checkElicitationHandler, cdWhy, secretsOf, realDirs } = require('./run.cjs');
const { loggerOf, warnUnknownKeys, envProblem } = require('../host/option-check.cjs');
const { opened, checkFunction } = require('./session.cjs');
const { agentError } = require('./conversation.cjs');
const { checkStore } = require('../record/record-writer.cjs');
const { describe } = require('../host/describe.cjs');
const conversations = require('../record/conversations.cjs');

/**
 * Starts `agentType` (an agent type, an AgentDefinition or an ACP registry
 * entry) over ACP and resolves an AgentProcess once it is
 * initialized. `options`: openAgentSession's, less `protocol` and
 * `sessionId` (a session to reopen goes to `loadSession`).
 */
async function openAgent(api, agentType, options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object, got ${describe(options)}`);
  const onPermission = checkPermissionHandler(options);
  const onElicitation = checkElicitationHandler(options);
  const onUpdate = checkFunction(options.onUpdate, 'options.onUpdate');
  const warn = loggerOf(options);
  warnUnknownKeys('openAgent options', options, warn);
  const { env: givenEnv, onPermission: _p, onUpdate: _u, onElicitation: _el, logger: _l, protocol, sessionId, store: givenStore, ...rest } = options;
  const store = checkStore(givenStore, 'options.store');
  if (protocol != null && protocol !== 'acp') throw inputError(`options.protocol: openAgent runs the agent over ACP only, got ${JSON.stringify(protocol)}`);
  if (sessionId != null) throw inputError('options.sessionId: give the session to reopen to loadSession(sessionId)');
  if (givenEnv != null && (typeof givenEnv !== 'object' || Array.isArray(givenEnv))) throw inputError(`options.env must be an object, got ${describe(givenEnv)}`);
  const badEnv = givenEnv != null && envProblem(givenEnv, 'options.env');
  if (badEnv) throw inputError(badEnv);
  const env = givenEnv ?? process.env;
  const updates = new Map(); // session key → its onUpdate
  let hostError = null;
  const started = await startEngine(agentType, rest, {
    env,
    onPermission,
    onElicitation,
    onUpdate: (update, key) => (key !== undefined && updates.get(key)) ? updates.get(key)(update) : onUpdate?.(update),
    onHostError: (err) => (hostError ??= err),
    warn,
    process: true,
  });
  if (started.failed !== undefined) throw inputError(started.failed.replace(/^invalid parameters: /, ''));
  const { host, plan } = started;
  const ready = await host.run((now) => host.engine.input({ type: 'open' }, now));
  if (ready.failed) {
    await host.run((now) => host.engine.input({ type: 'close' }, now));
    await host.closedPromise;
    host.engine.free();
    throw agentError(ready.failed);
  }
  require('./run.cjs').release(host);
  let info = ready.opened;
  const takeHostError = () => {
    const err = hostError;
    hostError = null;
    return err;
  };
  const live = () => {
    if (host.closed) throw inputError(`the process of ${plan.agentName} is closed`);
  };

  /** A session added, then opened (new, or `sessionId` resumed or loaded). */
  async function addSession(sessionOptions, sessionId) {
    live();
    if (sessionOptions !== undefined && (sessionOptions === null || typeof sessionOptions !== 'object' || Array.isArray(sessionOptions))) {
      throw inputError(`sessionOptions must be an object, got ${describe(sessionOptions)}`);
    }
    const given = sessionOptions ?? {};
    warnUnknownKeys("the session's options", given, warn);
    const sessionUpdate = checkFunction(given.onUpdate, 'sessionOptions.onUpdate');
    const { onUpdate: _su, ...own } = given;
    // On another machine the agent's folder is that side's (not checked here).
    if (typeof own.cd === 'string' && own.cd !== '' && !host.channel) {
      const full = path.resolve(own.cd);
      const problem = directoryProblem(full);
      if (problem) throw inputError(`sessionOptions.cd ${cdWhy(problem)}: ${own.cd}`);
      own.cd = fs.realpathSync(full);
    }
    if (own.dirs != null) own.dirs = realDirs(own.dirs, 'sessionOptions.dirs', !!host.channel);
    if (sessionId !== undefined) own.sessionId = sessionId;
    // The session's conversation: new, or — reopened from the store — the
    // one it is the live end of (SESSION_MOVED when it is not; its record
    // taken first, a lock).
    const setup = { id: require('node:crypto').randomUUID(), createdAt: Date.now(), agent: agentType, options: { ...rest, ...own } };
    const Machine = require('../core/agent_context_node.cjs').__Conversation;
    let machine = new Machine(setup);
    let writer;
    const found = store && sessionId !== undefined && (await conversations.findConversation(store, sessionId));
    if (found) {
      const taken = await conversations.takeConversation(store, found.conversationId);
      try {
        machine = Machine.restore(setup, taken.bytes, sessionId, Date.now());
      } catch (err) {
        await taken.writer.close();
        throw err;
      }
      writer = machine.id === found.conversationId ? taken.writer : (await taken.writer.close(), undefined);
    }
    const key = host.engine.addSession(own);
    if (sessionUpdate) updates.set(key, sessionUpdate);
    const done = await host.run((now) => host.engine.input({ type: 'openSession', session: key }, now));
    if (done.failed) {
      updates.delete(key);
      await host.run((now) => host.engine.input({ type: 'closeSession', session: key }, now));
      await writer?.close();
      throw agentError(done.failed);
    }
    const adopt = async () => ({ host, plan, key, snapshot: done.opened });
    const session = await opened(api, machine, { env, onPermission, onElicitation, onUpdate: sessionUpdate ?? onUpdate, warn, secrets: secretsOf(givenEnv, rest.endpoint), store, writer, base: setup.options, traceparent: rest.traceparent ?? undefined, adopt });
    const close = session.close;
    session.close = async () => {
      await close();
      updates.delete(key);
    };
    return session;
  }

  return {
    /** The agent type, or the id of the agent definition it was started with. */
    agentType: plan.agentType,
    get capabilities() {
      return info.capabilities ?? {};
    },
    get authMethods() {
      return info.authMethods ?? [];
    },
    get agentInfo() {
      return info.agentInfo ?? undefined;
    },
    /** A new session on this process. */
    newSession(sessionOptions) {
      return addSession(sessionOptions, undefined);
    },
    /** Session `sessionId` reopened (resume where advertised, else load), verified. */
    loadSession(sessionId, sessionOptions) {
      if (typeof sessionId !== 'string' || sessionId === '') return Promise.reject(inputError(`sessionId must be a non-empty string, got ${describe(sessionId)}`));
      return addSession(sessionOptions, sessionId);
    },
    /** The agent's sessions (`session/list`), where it advertises listing them. */
    async listSessions(query = {}) {
      live();
      if (query === null || typeof query !== 'object' || Array.isArray(query)) throw inputError(`listSessions' argument must be an object, got ${describe(query)}`);
      const params = {};
      for (const name of ['cwd', 'cursor']) {
        const value = query[name];
        if (value === undefined || value === null) continue;
        if (typeof value !== 'string') throw inputError(`listSessions' ${name} must be a string, got ${describe(value)}`);
        params[name] = name === 'cwd' ? path.resolve(value) : value;
      }
      const done = await host.run((now) => host.engine.input({ type: 'listSessions', params }, now));
      if (done.failed) throw agentError(done.failed);
      return { sessions: done.ok?.sessions ?? [], nextCursor: done.ok?.nextCursor ?? undefined };
    },
    /**
     * Deletes the agent's session `sessionId` (`session/delete`, where the
     * agent advertises it; `INVALID_INPUT` naming the agent, nothing sent,
     * where not).
     */
    async deleteSession(sessionId) {
      live();
      if (typeof sessionId !== 'string' || sessionId === '') throw inputError(`deleteSession: sessionId must be a non-empty string, got ${describe(sessionId)}`);
      const done = await host.run((now) => host.engine.input({ type: 'deleteSession', sessionId }, now));
      if (done.failed) throw agentError(done.failed);
    },
    /** Logs the agent out (`logout`, where it advertises it; `INVALID_INPUT` naming the agent, nothing sent, where not). */
    async logout() {
      live();
      const done = await host.run((now) => host.engine.input({ type: 'logout' }, now));
      if (!host.closed) info = host.engine.processInfo();
      if (done.failed) throw agentError(done.failed);
    },
    async authenticate(methodId) {
      live();
      const done = await host.run((now) => host.engine.input({ type: 'authenticate', method: String(methodId) }, now));
      if (!host.closed) info = host.engine.processInfo();
      if (done.failed) throw agentError(done.failed);
    },
    /** Every session, then the process tree. */
    async close() {
      if (host.closed) return;
      await host.run((now) => host.engine.input({ type: 'close' }, now));
      await host.closedPromise;
    },
  };
}

module.exports = { openAgent };
