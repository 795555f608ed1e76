// The conversations one server serves, Node only: each opened once
// (`session/new` on the configured agent, or its live end reopened from the
// store for `load` and `resume`), held while a client has it open, and
// closed with the server. Every client of the server (a stdio editor, a
// connection over HTTP or WebSocket) reaches the same conversation through
// here. The agent's requests (permission, elicitation) are routed to the
// client whose turn runs; the session's updates outside a turn to the
// conversation they concern.
'use strict';

const crypto = require('node:crypto');
const { ServedConversation } = require('./served-conversation.cjs');

/** ACP's MCP server (`env`/`headers` as name-value lists) as a session's option. */
function mcpServerOf(s) {
  const pairs = (list) => Object.fromEntries((list ?? []).map(({ name, value }) => [name, value]));
  if (s.type === 'http' || s.type === 'sse') return { name: s.name, type: s.type, url: s.url, ...(s.headers?.length && { headers: pairs(s.headers) }) };
  return { name: s.name, command: s.command, args: s.args ?? [], ...(s.env?.length && { env: pairs(s.env) }) };
}

/** The conversations served, and how to open them. */
class ConversationServer {
  /**
   * `api`: the package's exports; `store`; `agent` and its `options`
   * (`sessionOptions`: every conversation's, `cd` among them); `fallback`;
   * `idleClose`: seconds a conversation's agent may sit idle.
   */
  constructor({ api, store, agent, sessionOptions, fallback, idleClose }) {
    this.api = api;
    this.store = store;
    this.agent = agent;
    this.base = sessionOptions;
    this.fallback = fallback;
    this.idleClose = idleClose;
    this.conversations = new Map(); // conversationId → ServedConversation
    this.opening = new Map(); // conversationId → the promise of its opening
    this.epochs = crypto.randomBytes(6).toString('base64url'); // this server's logs, named
    this.closed = false;
  }

  /** The handlers a conversation's sessions share: they find the conversation (or fork) each request concerns. */
  family() {
    const family = { members: new Set(), focus: null };
    /** The member whose turn runs for agent session `sessionId` (or the one running, or the last opened). */
    const route = (sessionId) => {
      const running = [...family.members].filter((m) => m.running);
      return running.find((m) => m.session.sessionId === sessionId) ?? (running.length === 1 ? running[0] : family.focus);
    };
    family.handlers = {
      onUpdate: (update) => (family.focus ?? family.early).outside(update),
      onPermission: async (request) => {
        const member = route(request.sessionId);
        const conn = member?.running?.conn;
        if (!conn || conn.gone) return undefined; // the policy answers
        return conn.askPermission({ ...request, sessionId: member.id }, request.signal);
      },
      onElicitation: async (request) => {
        const member = route(request.sessionId);
        const conn = member?.running?.conn;
        if (!conn || conn.gone) return null; // declined
        return conn.askElicitation({ ...request, sessionId: member.id }, request.signal);
      },
    };
    // Updates before the conversation's first member exists, for it.
    const held = [];
    family.early = { outside: (update) => held.push(update), take: () => held.splice(0) };
    return family;
  }

  /** The options of a conversation's sessions: the base, its folder and MCP servers, the store and the handlers. */
  optionsFor(family, { cwd, mcpServers }) {
    const options = { ...this.base, ...family.handlers, store: this.store };
    if (cwd) options.cd = cwd;
    if (mcpServers?.length) options.mcpServers = mcpServers.map(mcpServerOf);
    if (this.fallback?.length) options.fallback = this.fallback;
    if (this.idleClose !== undefined) options.idleClose = this.idleClose;
    return options;
  }

  /** Its ServedConversation for `session`, opened with `family`: the record caught up, updates before it taken in. */
  adopt(session, family) {
    const served = new ServedConversation(session, family, `${this.epochs}.${crypto.randomBytes(3).toString('base64url')}`);
    this.conversations.set(served.id, served);
    served.catchUp();
    for (const update of family.early.take()) served.outside(update);
    return served;
  }

  /** A new conversation on the configured agent (`session/new`). */
  async create(params) {
    this.refuseClosed();
    const family = this.family();
    const session = await this.api.openAgentSession(this.agent, this.optionsFor(family, params));
    return this.adopt(session, family);
  }

  /** Conversation `id`, served already or reopened at its live end (`session/load`, `resume`); undefined when the store has none. */
  async open(id, params) {
    this.refuseClosed();
    const served = this.conversations.get(id);
    if (served) return served;
    if (!this.opening.has(id)) {
      const opening = this.reopen(id, params).finally(() => this.opening.delete(id));
      this.opening.set(id, opening);
    }
    return this.opening.get(id);
  }

  async reopen(id, params) {
    const { entries } = await require('../record/conversations.cjs').readConversation(this.store, id, { limit: 1 });
    if (entries.length === 0) return undefined;
    const family = this.family();
    // The configured agent and fallbacks: the live part runs the one of its type (a definition too).
    const session = await this.api.openConversation(this.store, id, { ...this.optionsFor(family, params), agent: this.agent, rebuild: true });
    return this.adopt(session, family);
  }

  /** A fork of `served` (at `atTurn`, else its last turn): a new conversation. */
  async fork(served, atTurn) {
    this.refuseClosed();
    const session = await served.session.fork(atTurn === undefined ? {} : { atTurn });
    return this.adopt(session, served.family);
  }

  /** `conn` let `served` go; the conversation is closed once nobody holds it. */
  async release(served, conn) {
    served.leave(conn);
    if (!served.idle) return;
    this.conversations.delete(served.id);
    await served.close();
  }

  /** A connection ended: it leaves every conversation (whose agents stay, until idle or closed). */
  gone(conn) {
    conn.gone = true;
    for (const served of [...conn.joined]) served.leave(conn);
  }

  refuseClosed() {
    if (this.closed) throw new Error('the server is closing');
  }

  /** Every conversation closed (its agent's process tree with it). */
  async close() {
    this.closed = true;
    await Promise.allSettled([...this.opening.values()]);
    const all = [...this.conversations.values()];
    this.conversations.clear();
    await Promise.allSettled(all.map((s) => s.close()));
  }
}

module.exports = { ConversationServer, mcpServerOf };
