// An ACP agent served elsewhere, Node only (`options.transport`): the
// session engine's `connect` action carried out with the ACP SDK's own
// client transports (Streamable HTTP, WebSocket over the `ws` package). The
// connection stands where the agent's process would: the engine's `write`
// lines are sent as its JSON-RPC messages, each message that comes back is
// handed to the engine as a line of stdout, `closeStdin` and `kill` close it,
// and a connection lost otherwise is told as `disconnected`, which the core
// reads as a crash. The SDK and `ws` are loaded by `import()` here, on the
// first connection, and nowhere else. Every decision is the core's.
'use strict';

const { importPackage } = require('../host/import-package.cjs');

/** The packages a transport needs, by the engine's kind of transport. */
const MODULES = {
  http: ['@agentclientprotocol/sdk/experimental/http-client'],
  websocket: ['@agentclientprotocol/sdk/experimental/ws-client', 'ws'],
};
/** After asking a connection to close: how long it may take before it is taken as closed. */
const CLOSE_GRACE_MS = 5_000;

/**
 * The transport of `kind` (`http`, `websocket`), loaded: `{ open(action) }`
 * making the SDK's stream for a `connect` action; or `{ missing }`, why it
 * cannot be (the packages to install).
 */
async function loadTransport(kind) {
  let loaded;
  try {
    loaded = await Promise.all(MODULES[kind].map(importPackage));
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'MODULE_NOT_FOUND') throw err;
    return { missing: `options.transport needs the packages @agentclientprotocol/sdk (2.4 or later) and ws (8), which the app installs: npm install @agentclientprotocol/sdk ws (${err.message.split('\n')[0]})` };
  }
  if (kind === 'http') {
    const [{ createHttpStream }] = loaded;
    return { open: (action) => createHttpStream(action.url, { headers: action.headers }) };
  }
  const [{ createWebSocketStream }, ws] = loaded;
  // Node's own WebSocket sends no headers: `ws` does.
  const WebSocket = ws.WebSocket ?? ws.default;
  return { open: (action) => createWebSocketStream(action.url, { headers: action.headers, WebSocket }) };
}

/** What a connection's error says, for the core's words: its code, else its message. */
function reasonOf(err) {
  if (err === undefined || err === null) return '';
  const cause = err.cause;
  const code = cause?.code ?? err.code;
  if (typeof code === 'string' && code !== '') return code;
  const message = String(err.message ?? err);
  return cause?.message ? `${message} (${cause.message})` : message;
}

/**
 * One connection for `host` (an EngineHost) as its `child`: what the
 * host's `write`, `closeStdin` and `kill` act on, and `treeGone()`, which
 * resolves once it is closed.
 */
class Connection {
  constructor(transport, action, host) {
    this.host = host;
    this.opened = false; // anything came back on it
    this.asked = null; // 'close' or 'kill': the engine asked it to end
    this.ended = false;
    this.queue = []; // messages written before the stream exists
    this.writer = null;
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    const connection = this;
    this.stdin = {
      get destroyed() {
        return connection.ended;
      },
      get writableEnded() {
        return connection.asked !== null;
      },
      write: (data) => this.send(data),
      end: () => this.close('close'),
    };
    try {
      this.stream = transport.open(action);
    } catch (err) {
      this.stream = null;
      queueMicrotask(() => this.finish(err));
      return;
    }
    this.writer = this.stream.writable.getWriter();
    for (const message of this.queue.splice(0)) this.deliver(message);
    this.pump();
  }

  /** The engine's bytes: whole JSON-RPC lines, each sent as its message. */
  send(data) {
    if (this.asked !== null || this.ended) return;
    for (const line of String(data).split('\n')) {
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        continue; // the engine writes whole JSON lines only
      }
      if (this.writer) this.deliver(message);
      else this.queue.push(message);
    }
  }

  deliver(message) {
    // A write that fails ends the stream's readable side, which says why.
    this.writer.write(message).catch(() => {});
  }

  async pump() {
    const reader = this.stream.readable.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        this.opened = true;
        const line = Buffer.from(`${JSON.stringify(value)}\n`);
        this.host.feed((e, now) => e.stdout(line, now));
      }
      this.finish(undefined);
    } catch (err) {
      this.finish(err ?? new Error('the connection failed'));
    }
  }

  /** Ends it as the engine asked (`close`: its stdin ended; `kill`). */
  close(how) {
    if (this.ended) return;
    if (this.asked === null || how === 'kill') this.asked = how;
    if (!this.stream) return;
    // The SDK's stream closes its socket, or ends its HTTP connection, and its readable side.
    this.writer.close().catch(() => {});
    this.graceTimer ??= setTimeout(() => this.finish(undefined), CLOSE_GRACE_MS);
  }

  kill() {
    this.close('kill');
  }

  finish(err) {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.graceTimer);
    if (this.stream && this.asked === null) this.writer.abort().catch(() => {});
    if (this.host.child === this) this.host.child = null;
    const asked = this.asked;
    const input =
      asked === 'kill'
        ? { type: 'exited', code: null, signal: 'SIGKILL' }
        : asked === 'close'
          ? { type: 'exited', code: 0, signal: null }
          : { type: 'disconnected', opened: this.opened, reason: err === undefined ? '' : reasonOf(err) };
    this.resolveClosed();
    if (!this.host.closed) this.host.feed((e, now) => e.input(input, now));
  }

  treeGone() {
    return this.closedPromise;
  }
}

/**
 * `prepare`'s work for an engine whose plan says its agent is served
 * elsewhere (./run.cjs): nothing is resolved, written or made here; the
 * working folder is checked only when it is this machine's (`clientFs`);
 * the transport's packages are loaded, and `host` (an EngineHost) gets the
 * connector for the engine's `connect`. `cdProblem`: why `cd` cannot be
 * used here, if it cannot. Resolves `{ host, plan }`.
 */
async function prepareServed(host, plan, cdProblem) {
  const { engine } = host;
  if (cdProblem && plan.transport.localCd) {
    engine.input({ type: 'reject', message: cdProblem }, Date.now());
    return { host, plan };
  }
  const transport = await loadTransport(plan.transport.kind);
  if (transport.missing) engine.input({ type: 'cannotLaunch', spawnFailed: true, message: transport.missing }, Date.now());
  else host.connector = connectorFor(transport);
  return { host, plan };
}

/**
 * The connector `prepare` gives an EngineHost whose engine plans a
 * transport: `connect(action, host)` carries out the engine's `connect`.
 */
function connectorFor(transport) {
  return {
    connect(action, host) {
      const connection = new Connection(transport, action, host);
      host.child = connection;
      host.lastChild = connection;
      host.engine.input({ type: 'spawned' }, Date.now());
    },
  };
}

module.exports = { prepareServed, loadTransport, connectorFor, reasonOf };
