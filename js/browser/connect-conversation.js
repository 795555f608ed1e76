// connectConversation (the browser build, pkg/web/connect-conversation.js,
// imported on its first call): a page — an Electron renderer, a second
// window — joins a conversation that `serveConversations` or `agent-context
// serve` serves, over the browser's WebSocket (the token offered as the
// subprotocol `bearer.<token>` beside `acp`, never in the URL). Every
// message is one JSON-RPC object; each turn's lines go through the core's
// ACP reader (AgentOutputParser with protocol 'acp'), so a turn resolves
// the same reply, and `onEvent` hears the same events, as a session in Node.

/** One JSON-RPC connection over `socket`: `request`, `notify`, and the messages it did not ask for. */
function rpc(socket, onMessage) {
  let next = 0;
  const waiting = new Map();
  socket.addEventListener('message', (e) => {
    const line = typeof e.data === 'string' ? e.data : '';
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (message.id !== undefined && message.method === undefined && waiting.has(message.id)) {
      const { resolve, reject } = waiting.get(message.id);
      waiting.delete(message.id);
      if (message.error) reject(Object.assign(new Error(message.error.message), { code: message.error.code, data: message.error.data, line }));
      else resolve({ result: message.result, line });
    } else onMessage(message, line);
  });
  socket.addEventListener('close', () => {
    for (const { reject } of waiting.values()) reject(new Error('the connection closed'));
    waiting.clear();
  });
  const send = (message) => socket.send(JSON.stringify({ jsonrpc: '2.0', ...message }));
  return {
    request: (method, params) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        waiting.set(id, { resolve, reject });
        send({ id, method, params });
      }),
    notify: (method, params) => send({ method, params }),
    answer: (id, result) => send({ id, result }),
  };
}

/**
 * Joins the conversation `conversationId` served at `url` (`ws://…`), or
 * opens a new one: resolves `{ conversationId, prompt, onEvent, history,
 * watch, cancel, close }` (docs/browser.md). `AgentOutputParser` and
 * `knownAgents`: the build's own, given by the entry.
 */
export async function connectConversation(url, options, { AgentOutputParser, knownAgents }) {
  const { token, conversationId, cwd, onPermission, WebSocket: Socket = globalThis.WebSocket } = options ?? {};
  if (typeof url !== 'string' || !/^wss?:\/\//.test(url)) throw new TypeError(`url must be a ws:// or wss:// URL, got ${typeof url === 'string' ? JSON.stringify(url) : typeof url}`);
  if (typeof token !== 'string' || token === '') throw new TypeError('options.token must be the server’s token');
  const socket = new Socket(url, ['acp', `bearer.${token}`]);
  await new Promise((resolve, reject) => {
    socket.addEventListener('open', resolve, { once: true });
    socket.addEventListener('error', () => reject(new Error(`could not connect to ${url} (a wrong token, or an origin the server does not list)`)), { once: true });
  });
  const updates = []; // every session/update of the conversation, in order: { seq, turn, agentType, sessionId, update }
  const watchers = new Set();
  const listeners = new Set();
  let id = conversationId;
  let turn = null; // { parser, onEvent, promptId }
  const hear = (events) => {
    for (const event of events) {
      turn?.onEvent?.(event);
      for (const listen of listeners) listen(event);
    }
  };
  const connection = rpc(socket, (message, line) => {
    if (message.method === 'session/update' && message.params?.sessionId === id) {
      const own = message.params._meta?.['agent-context'] ?? {};
      const entry = { ...own, update: message.params.update };
      updates.push(entry);
      for (const w of watchers) if (entry.seq > w.after) w.onEntry(entry);
      if (turn && own.promptId === turn.promptId) hear(turn.parser.push(new TextEncoder().encode(`${line}\n`)));
    } else if (message.method === 'session/request_permission' && message.id !== undefined) {
      Promise.resolve(onPermission ? onPermission(message.params) : null).then(
        (optionId) => connection.answer(message.id, { outcome: optionId ? { outcome: 'selected', optionId } : { outcome: 'cancelled' } }),
        () => connection.answer(message.id, { outcome: { outcome: 'cancelled' } }),
      );
    } else if (message.id !== undefined && message.method !== undefined) {
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `${message.method} is not offered by this client` } }));
    }
  });
  const { result: init } = await connection.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const folder = cwd ?? init._meta?.['agent-context']?.cd;
  const opened = id
    ? await connection.request('session/load', { sessionId: id, cwd: folder, mcpServers: [] })
    : await connection.request('session/new', { cwd: folder, mcpServers: [] });
  id = opened.result.sessionId ?? id;
  let prompts = 0;
  // The ACP reader of the conversation's agent; an agent it does not know (a definition) is read as the registry's first.
  const readAs = (type) => (knownAgents().some((a) => a.agentType === type) ? type : knownAgents()[0].agentType);
  let agentType = opened.result._meta?.['agent-context']?.agentType;

  return {
    get conversationId() {
      return id;
    },
    /** One turn: the reply (`parseAgentOutput`'s shape, `protocol: 'acp'`), after the turns before it. */
    async prompt(request, { onEvent } = {}) {
      if (turn) throw new Error('a turn of this client is running');
      const prompt = typeof request === 'string' ? [{ type: 'text', text: request }] : request;
      const promptId = `p${++prompts}.${Math.random().toString(36).slice(2)}`;
      const parser = new AgentOutputParser(readAs(agentType), { protocol: 'acp' });
      turn = { parser, onEvent, promptId };
      try {
        const { line } = await connection.request('session/prompt', { sessionId: id, prompt, _meta: { 'agent-context': { promptId } } }).catch((err) => ({ line: err.line }));
        if (line) hear(parser.push(new TextEncoder().encode(`${line}\n`)));
        const reply = parser.finish();
        agentType = updates.at(-1)?.agentType ?? agentType;
        return reply;
      } finally {
        turn = null;
      }
    },
    /** Hears every event of this client's turns; returns the function that stops it. */
    onEvent(listen) {
      listeners.add(listen);
      return () => listeners.delete(listen);
    },
    /** The conversation's updates this client was sent (after `after`, their `seq`). */
    history({ after = 0 } = {}) {
      const entries = updates.filter((u) => u.seq > after);
      return { entries, cursor: updates.at(-1)?.seq ?? after };
    },
    /** The same, live: `onEntry` for each update after `after`; returns the function that stops it. */
    watch({ after = 0 } = {}, onEntry) {
      const w = { after, onEntry };
      for (const u of updates) if (u.seq > after) onEntry(u);
      watchers.add(w);
      return () => watchers.delete(w);
    },
    /** Cancels the running turn (and this client's waiting prompts). */
    cancel() {
      connection.notify('session/cancel', { sessionId: id });
    },
    close() {
      socket.close();
    },
  };
}
