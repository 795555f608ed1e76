// The ACP agent a client of a conversation server talks to, Node only:
// one agent app of the ACP SDK (its agent side: params read with the
// protocol's schema, answers and errors written by the SDK) per connection,
// over a ConversationServer (./conversation-server.cjs). To the client it is
// one agent whose sessions are this package's conversations: the served
// `sessionId` is the `conversationId`. What it answers beside the
// conversation's updates (initialize, a list page, a turn's outcome) is the
// core's (`__servedInitialize`, `__servedListPage`, `__servedPromptOutcome`).
'use strict';

const { sessionState } = require('./served-conversation.cjs');

const node = () => require('../core/agent_context_node.cjs');
/** JSON-RPC's "resource not found" (ACP: an unknown session). */
const NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** `_meta['agent-context']` of a request's params. */
const ownMeta = (params) => {
  const m = params?._meta?.['agent-context'];
  return m !== null && typeof m === 'object' ? m : {};
};

/** What one connection is, for the conversations it joins. */
function connectionOf(client) {
  const conn = {
    client,
    caps: {},
    joined: new Set(), // the ServedConversations it opened, loaded or resumed
    gone: false,
    chain: Promise.resolve(),
    get notices() {
      return this.caps.session?.notices != null;
    },
    /** A `session/update`, sent after every one before it. */
    deliver(params) {
      conn.chain = conn.chain.then(() => (conn.gone ? undefined : client.notify('session/update', params))).catch(() => {});
    },
    flush: () => conn.chain,
    async askPermission(params, signal) {
      try {
        const { outcome } = await client.request('session/request_permission', params, { cancellationSignal: signal });
        return outcome?.outcome === 'selected' ? { optionId: outcome.optionId } : { outcome: 'cancelled' };
      } catch {
        return { outcome: 'cancelled' };
      }
    },
    async askElicitation(params, signal) {
      const modes = conn.caps.elicitation ?? {};
      if (modes[params.mode] == null) return null; // the client takes no such elicitation: declined
      try {
        return await client.request('elicitation/create', params, { cancellationSignal: signal });
      } catch {
        return { action: 'cancel' };
      }
    },
  };
  return conn;
}

/**
 * The agent app for each connection to `server` (a ConversationServer):
 * `acp`, the SDK's unstable entry, loaded; `check(params)`: the server's
 * refusal of a session request's folders, or null; `onConnection(conn)`
 * told of each (to end it when the server closes).
 */
function conversationAgent(acp, server, { check = () => null } = {}) {
  const { RequestError } = acp;
  const refuse = (code, message, data) => new RequestError(code, message, data);
  /** The error a failed open or reopen is answered with. */
  const failed = (err) => {
    if (err instanceof RequestError) return err;
    if (err?.name === 'AgentContextError') return refuse(err.code === 'INVALID_INPUT' ? INVALID_PARAMS : -32603, err.message, { code: err.code, kind: err.kind, details: err.details });
    return refuse(-32603, err?.message ?? String(err));
  };

  return {
    connect(stream, options) {
      let conn;
      const joinedBy = (sessionId) => {
        const served = server.conversations.get(sessionId);
        if (!served || !served.clients.has(conn)) throw refuse(NOT_FOUND, `no conversation ${sessionId} is open on this connection (session/new, load or resume it first)`);
        return served;
      };
      const checked = (params) => {
        const refusal = check(params);
        if (refusal) throw refuse(refusal.code, refusal.message);
      };
      /** A response's state: the live end's modes and options, and the conversation's place. */
      const opened = (served, extra = {}) => ({ ...sessionState(served.session), _meta: { 'agent-context': { ...served.log.state(), ...extra } } });
      const reopen = async (params, resume) => {
        checked(params);
        let served;
        try {
          served = await server.open(params.sessionId, params);
        } catch (err) {
          throw failed(err);
        }
        if (!served) throw refuse(NOT_FOUND, `no conversation ${params.sessionId} in the store`);
        const { after, epoch } = ownMeta(params);
        const { reset } = await served.join(conn, { after: Number.isInteger(after) && after >= 0 ? after : undefined, epoch: typeof epoch === 'string' ? epoch : undefined, resume });
        return opened(served, reset ? { reset: true } : {});
      };

      const app = acp
        .agent({ name: 'agent-context' })
        .onRequest('initialize', ({ params }) => {
          conn.caps = params.clientCapabilities ?? {};
          return node().__servedInitialize(params.protocolVersion, server.base.cd);
        })
        .onRequest('authenticate', () => ({}))
        .onRequest('session/new', async ({ params }) => {
          checked(params);
          let served;
          try {
            served = await server.create(params);
          } catch (err) {
            throw failed(err);
          }
          // Its first updates (the agent's commands) follow the response.
          await new Promise((resolve) => setImmediate(resolve));
          const state = opened(served);
          served.join(conn, { after: 0 }).catch(() => {});
          return { sessionId: served.id, ...state };
        })
        .onRequest('session/load', ({ params }) => reopen(params, false))
        .onRequest('session/resume', ({ params }) => reopen(params, true))
        .onRequest('session/list', async ({ params }) => {
          const summaries = await require('../record/conversations.cjs').listConversations(server.store);
          try {
            return node().__servedListPage(summaries, params.cwd ?? undefined, params.cursor ?? undefined);
          } catch (err) {
            throw refuse(INVALID_PARAMS, err.message);
          }
        })
        .onRequest('session/prompt', async ({ params }) => {
          const { promptId } = ownMeta(params);
          const outcome = await joinedBy(params.sessionId).prompt(conn, params.prompt, typeof promptId === 'string' && promptId.length <= 200 ? promptId : undefined);
          if (outcome.error) throw refuse(outcome.error.code, outcome.error.message, outcome.error.data);
          return outcome.result;
        })
        .onNotification('session/cancel', async ({ params }) => {
          const served = server.conversations.get(params.sessionId);
          if (served?.clients.has(conn)) await served.cancel(conn);
        })
        .onRequest('session/close', async ({ params }) => {
          const served = server.conversations.get(params.sessionId);
          if (served?.clients.has(conn)) await server.release(served, conn);
          return {};
        })
        .onRequest('session/fork', async ({ params }) => {
          checked(params);
          const from = joinedBy(params.sessionId);
          const { atTurn } = ownMeta(params);
          let served;
          try {
            served = await server.fork(from, atTurn);
          } catch (err) {
            throw failed(err);
          }
          await served.join(conn, { after: served.log.seq });
          return { sessionId: served.id, ...opened(served) };
        })
        .onRequest('session/set_mode', async ({ params }) => {
          const served = joinedBy(params.sessionId);
          served.family.focus = served;
          await served.session.setMode(params.modeId).catch((err) => {
            throw failed(err);
          });
          return {};
        })
        .onRequest('session/set_config_option', async ({ params }) => {
          const served = joinedBy(params.sessionId);
          served.family.focus = served;
          await served.session.setConfigOption(params.configId, params.value).catch((err) => {
            throw failed(err);
          });
          return { configOptions: served.session.configOptions };
        });
      const connection = app.connect(stream, options);
      conn = connectionOf(connection.client);
      Promise.resolve(connection.closed).finally(() => server.gone(conn));
      return connection;
    },
  };
}

module.exports = { conversationAgent };
