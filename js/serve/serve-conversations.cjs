// This package's conversations served to any ACP client, Node only: over
// Streamable HTTP and WebSocket on one URL through serveAgent's door
// (./serve-agent.cjs: the token, Origin, Host, limits, a session's folder
// and MCP servers checked before anything reaches a conversation), or on
// stdio for an editor that starts it as an agent server (`agent-context
// acp`). Either way each connection gets the conversation agent
// (./conversation-agent.cjs) over one ConversationServer, so every client
// reaches the same conversations. The ACP SDK and `ws` are loaded by
// `import()` here and nowhere else.
'use strict';

const fs = require('node:fs');
const { ConversationServer } = require('./conversation-server.cjs');
const { conversationAgent } = require('./conversation-agent.cjs');
const { realPath } = require('./guarded-agent.cjs');
const { importPackage } = require('../host/import-package.cjs');

/** Seconds a served conversation's agent may sit without a turn before its process stops (it resumes on the next). */
const IDLE_CLOSE_S = 600;

function inputError(message) {
  const { AgentContextError } = require('../core/agent_context.cjs');
  return new AgentContextError('INVALID_INPUT', message);
}

const describe = (value) => require('../host/describe.cjs').describe(value);

async function loadSdk() {
  try {
    return await importPackage('@agentclientprotocol/sdk/unstable');
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'MODULE_NOT_FOUND') throw err;
    throw inputError(`serving conversations needs the package @agentclientprotocol/sdk (2.4 or later), which the app installs: npm install @agentclientprotocol/sdk ws (${err.message.split('\n')[0]})`);
  }
}

/** The options every server reads: the store, the agent, its fallbacks and the sessions' options, checked. */
function conversationOptions(api, options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object, got ${describe(options)}`);
  // The default agent: the registry's first.
  const { store, agent = api.knownAgents()[0].agentType, fallback, sessionOptions = {}, idleClose = IDLE_CLOSE_S } = options;
  require('../record/record-writer.cjs').checkStore(store, 'options.store');
  if (sessionOptions === null || typeof sessionOptions !== 'object' || Array.isArray(sessionOptions)) throw inputError(`options.sessionOptions must be an object, got ${describe(sessionOptions)}`);
  for (const key of ['store', 'fallback', 'sessionId', 'onPermission', 'onElicitation', 'onUpdate']) {
    if (sessionOptions[key] !== undefined) throw inputError(`options.sessionOptions.${key}: the server sets it (${key === 'store' || key === 'fallback' ? `give options.${key}` : 'each client answers for its turns'})`);
  }
  if (fallback != null && !Array.isArray(fallback)) throw inputError(`options.fallback must be an array of agents, got ${describe(fallback)}`);
  if (typeof idleClose !== 'number' || !(idleClose > 0)) throw inputError(`options.idleClose must be a positive number of seconds, got ${describe(idleClose)}`);
  const cd = sessionOptions.cd ?? process.cwd();
  if (typeof cd !== 'string' || cd === '') throw inputError(`options.sessionOptions.cd must be a folder, got ${describe(cd)}`);
  const problem = require('../host/agent-process.cjs').directoryProblem(cd);
  if (problem) throw inputError(`options.sessionOptions.cd ${require('../api/run.cjs').cdWhy(problem)}: ${cd}`);
  return {
    api,
    store: store ?? api.memorySessionStore(),
    agent,
    fallback: fallback ?? undefined,
    sessionOptions: { ...sessionOptions, cd: fs.realpathSync(cd) },
    idleClose,
  };
}

/**
 * Serves this package's conversations over Streamable HTTP and WebSocket:
 * resolves `{ url, token, close() }` once it listens (docs/serving.md).
 */
async function serveConversations(api, options) {
  const settings = conversationOptions(api, options);
  const { store: _s, agent: _a, fallback: _f, sessionOptions: _o, idleClose: _i, ...door } = options;
  const acp = await loadSdk();
  const server = new ConversationServer(settings);
  let served;
  try {
    served = await require('./serve-agent.cjs').serveAgent({ ...door, cd: settings.sessionOptions.cd, agent: conversationAgent(acp, server) });
  } catch (err) {
    await server.close();
    throw err;
  }
  let closing;
  const close = () => {
    closing ??= (async () => {
      server.closed = true;
      await served.close();
      await server.close();
    })();
    return closing;
  };
  return { url: served.url, token: served.token, close };
}

/**
 * Serves the conversations to the one client on `input`/`output` (an
 * editor that started `agent-context acp`): resolves `{ closed }`, which
 * resolves once the input ended and every conversation (and agent) is
 * closed. With `sessionOptions.cd` given by the user (`cd`), a client's
 * `cwd` must lie inside it.
 */
async function serveConversationsOnStdio(api, options, { input = process.stdin, output = process.stdout, confine } = {}) {
  const settings = conversationOptions(api, options);
  const acp = await loadSdk();
  const server = new ConversationServer(settings);
  let check;
  if (confine) {
    const { __ServeGate: ServeGate } = require('../core/agent_context_node.cjs');
    const gate = new ServeGate({ cd: settings.sessionOptions.cd, agent: {}, allowClientMcp: true }, require('node:crypto').randomBytes(32).toString('base64url'));
    check = (params) => gate.checkSession(params, gate.pathsOf(params).map(realPath));
  }
  const { Readable, Writable } = require('node:stream');
  const stream = acp.ndJsonStream(Writable.toWeb(output), Readable.toWeb(input));
  const connection = conversationAgent(acp, server, { check }).connect(stream);
  const closed = Promise.resolve(connection.closed).then(() => server.close());
  return { closed, close: () => (connection.close(), closed) };
}

module.exports = { serveConversations, serveConversationsOnStdio, IDLE_CLOSE_S };
