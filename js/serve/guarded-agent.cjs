// What stands between a served connection and its agent, Node only: an
// AgentConnector of the ACP SDK wrapped around another (a stdio agent, or
// the app's), which the server's checks pass through. Every request that
// opens or reopens a session has its params checked by the core
// (`__ServeGate.checkSession`: its `cwd` and directories inside the
// server's folder, their links resolved here; no stdio MCP server unless
// allowed); a refused one is answered with the core's JSON-RPC error and
// never reaches the agent. It counts the connections open (for the limit)
// and, when told to (`idleMs`: Streamable HTTP, which has no pong), closes
// one that had no traffic and no request waiting for that long.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** `file` with its links resolved, through its nearest existing folder. */
function realPath(file) {
  const rest = [];
  let dir = path.resolve(file);
  for (let i = 0; i < 4096; i += 1) {
    try {
      return path.join(fs.realpathSync(dir), ...rest.reverse());
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return file;
      rest.push(path.basename(dir));
      dir = parent;
    }
  }
  return file;
}

const isRequest = (m) => m !== null && typeof m === 'object' && typeof m.method === 'string' && m.id !== undefined && m.id !== null;
const isResponse = (m) => m !== null && typeof m === 'object' && m.method === undefined && m.id !== undefined && m.id !== null;
const idKey = (id) => `${typeof id}:${id}`;

/**
 * `inner` (an AgentConnector) guarded: `gate` the core's `__ServeGate`,
 * `checked` the methods whose params it checks, `live` the set of open
 * connections (each added on connect, removed once closed; none past
 * the core's bound), `idleMs` the
 * idle bound (none: not watched here), `onIdle()` told when one is
 * closed for being idle.
 */
function guardedAgent(inner, { gate, checked, live, idleMs, onIdle }) {
  return {
    connect(stream, options) {
      // Past the bound (requests that passed the gate at once): closed before its agent starts.
      if (!gate.roomFor(live.size)) {
        stream.writable.close().catch(() => {});
        stream.readable.cancel().catch(() => {});
        return { closed: Promise.resolve() };
      }
      const toAgent = new TransformStream();
      const fromAgent = new TransformStream();
      const lifecycle = inner.connect({ readable: toAgent.readable, writable: fromAgent.writable }, options);
      const out = stream.writable.getWriter();
      const agentIn = toAgent.writable.getWriter();
      const clientIn = stream.readable.getReader();
      const agentOut = fromAgent.readable.getReader();
      const pending = new Set(); // the client's requests not yet answered
      let last = Date.now();
      let closing = false;
      const connection = {};
      live.add(connection);
      const close = () => {
        if (closing) return;
        closing = true;
        clearInterval(timer);
        clientIn.cancel().catch(() => {});
        agentIn.close().catch(() => {});
        agentOut.cancel().catch(() => {});
        out.close().catch(() => {});
      };
      const timer =
        idleMs === undefined
          ? undefined
          : setInterval(() => {
              if (pending.size === 0 && Date.now() - last >= idleMs) {
                onIdle?.();
                close();
              }
            }, Math.max(5, Math.floor(idleMs / 4)));
      timer?.unref?.();
      const fromClient = (async () => {
        for (;;) {
          const { value, done } = await clientIn.read();
          if (done) break;
          last = Date.now();
          if (isRequest(value)) {
            if (checked.has(value.method)) {
              const params = value.params ?? {};
              const real = gate.pathsOf(params).map(realPath);
              const refusal = gate.checkSession(params, real);
              if (refusal) {
                await out.write({ jsonrpc: '2.0', id: value.id, error: refusal });
                continue;
              }
            }
            pending.add(idKey(value.id));
          }
          await agentIn.write(value);
        }
      })()
        .catch(() => {})
        .finally(close);
      const toClient = (async () => {
        for (;;) {
          const { value, done } = await agentOut.read();
          if (done) break;
          last = Date.now();
          if (isResponse(value)) pending.delete(idKey(value.id));
          await out.write(value);
        }
      })()
        .catch(() => {})
        .finally(close);
      const innerClosed = lifecycle && typeof lifecycle === 'object' && lifecycle.closed ? Promise.resolve(lifecycle.closed) : toClient;
      const closed = Promise.allSettled([innerClosed, fromClient, toClient]).then(() => {
        clearInterval(timer);
        live.delete(connection);
      });
      // Closed when the agent's side ended (its process exited) or the client's did.
      return {
        closed: Promise.race([toClient.then(() => closed), closed]),
        startConnectHandlers: () => lifecycle?.startConnectHandlers?.(),
      };
    },
  };
}

module.exports = { guardedAgent, realPath };
