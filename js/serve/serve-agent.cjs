// An ACP agent served over the network, Node only: Streamable HTTP and
// WebSocket on one URL (`http://host:port/path`, the same with `ws://`),
// built on the ACP SDK's server transport (`AcpServer`: `handleRequest`
// through its Node adapter, `prepareWebSocketUpgrade`), Node's `http`
// server and the `ws` package's WebSocket server — all loaded by `import()`
// when a server starts, and by nothing else. Every request first passes the
// core's gate (`__ServeGate`, src/serve/: Host, Origin, bearer token, path,
// method, connection limit); each connection's agent is guarded
// (./guarded-agent.cjs: session params, idle close over HTTP), and a
// WebSocket is pinged, closed after the idle bound without traffic or pong.
// This file listens, moves bytes and keeps time; it decides nothing.
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const { guardedAgent, realPath } = require('./guarded-agent.cjs');
const { stdioAgent } = require('./stdio-agent.cjs');
const { importPackage } = require('../host/import-package.cjs');

/** How long close() waits for the connections' agents to be gone. */
const CLOSE_WAIT_MS = 10_000;
/** The SDK's buffer per connection stays above a message's bound. */
const MIN_BUFFERED_BYTES = 64 * 1024 * 1024;
/** ACP's header naming a connection, on a WebSocket's 101 as the SDK's own adapter sends it. */
const CONNECTION_HEADER = 'Acp-Connection-Id';

function inputError(message) {
  const { AgentContextError } = require('../core/agent_context.cjs');
  return new AgentContextError('INVALID_INPUT', message);
}

function describe(value) {
  return require('../host/describe.cjs').describe(value);
}

/** The packages serving needs, loaded; throws naming them when the app has not installed them. */
async function loadServing() {
  const names = ['@agentclientprotocol/sdk/experimental/server', '@agentclientprotocol/sdk/experimental/node', 'ws'];
  try {
    const [server, node, ws] = await Promise.all(names.map(importPackage));
    return { AcpServer: server.AcpServer, createNodeHttpHandler: node.createNodeHttpHandler, WebSocketServer: ws.WebSocketServer ?? ws.default.WebSocketServer };
  } catch (err) {
    if (err?.code !== 'ERR_MODULE_NOT_FOUND' && err?.code !== 'MODULE_NOT_FOUND') throw err;
    throw inputError(`serving ACP needs the packages @agentclientprotocol/sdk (2.4 or later) and ws (8), which the app installs: npm install @agentclientprotocol/sdk ws (${err.message.split('\n')[0]})`);
  }
}

/** The app's logger: `{ info?, warn? }` or a function `(message, level)`. */
function logOf(logger) {
  if (typeof logger === 'function') return { info: (m) => logger(m, 'info'), warn: (m) => logger(m, 'warn') };
  return { info: (m) => logger?.info?.(m), warn: (m) => (logger?.warn ?? console.warn)(m) };
}

/** The connector for `options.agent`: the app's own (`connect`), or a stdio agent `{ command, args?, env? }`. */
function connectorOf(agent, cd) {
  if (agent !== null && typeof agent === 'object' && typeof agent.connect === 'function') return agent;
  if (agent === null || typeof agent !== 'object' || Array.isArray(agent)) {
    throw inputError(`options.agent must be { command, args?, env? } (an ACP agent on its stdio) or an ACP SDK AgentConnector, got ${describe(agent)}`);
  }
  if (typeof agent.command !== 'string' || agent.command === '') throw inputError(`options.agent.command must be a non-empty string, got ${describe(agent.command)}`);
  if (agent.args != null && (!Array.isArray(agent.args) || agent.args.some((a) => typeof a !== 'string'))) {
    throw inputError(`options.agent.args must be an array of strings, got ${describe(agent.args)}`);
  }
  if (agent.env != null && (typeof agent.env !== 'object' || Array.isArray(agent.env))) throw inputError(`options.agent.env must be an object, got ${describe(agent.env)}`);
  return stdioAgent({ command: agent.command, args: agent.args ?? [], env: agent.env ?? process.env, cwd: cd });
}

/** What the gate reads of `req`. */
function requestOf(req, upgrade, connections) {
  const h = req.headers;
  return {
    method: req.method,
    target: req.url ?? '',
    host: h.host,
    origin: h.origin,
    authorization: h.authorization,
    protocols: h['sec-websocket-protocol'],
    upgrade,
    connectionId: h['acp-connection-id'] !== undefined,
    connections,
  };
}

/**
 * Serves an ACP agent over Streamable HTTP and WebSocket. Resolves `{ url,
 * token, close() }` once it listens; `token` is the one given, or the one
 * generated (said nowhere else). See docs/serving.md.
 */
async function serveAgent(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`options must be an object, got ${describe(options)}`);
  const { agent, logger, ...rest } = options;
  const log = logOf(logger);
  if (typeof rest.cd !== 'string' || rest.cd === '') throw inputError(`options.cd must be the folder conversations work in (a non-empty string), got ${describe(rest.cd)}`);
  const problem = require('../host/agent-process.cjs').directoryProblem(rest.cd);
  if (problem) throw inputError(`options.cd ${require('../api/run.cjs').cdWhy(problem)}: ${rest.cd}`);
  const cd = fs.realpathSync(rest.cd);
  const { __ServeGate: ServeGate } = require('../core/agent_context_node.cjs');
  const gate = new ServeGate({ ...rest, cd, agent: {}, ...(logger !== undefined && { logger: {} }) }, crypto.randomBytes(32).toString('base64url'));
  const settings = gate.settings();
  for (const warning of settings.warnings) log.warn(warning);
  const inner = connectorOf(agent, cd);
  const { AcpServer, createNodeHttpHandler, WebSocketServer } = await loadServing();
  const { limits } = settings;
  const checked = new Set(settings.checkedMethods);
  const live = new Set();
  const httpAgent = guardedAgent(inner, { gate, checked, live, idleMs: limits.idleMs, onIdle: () => log.info('acp server: closed a connection idle for the bound') });
  const wsAgent = guardedAgent(inner, { gate, checked, live });
  const acp = new AcpServer({ agent: httpAgent, maxBufferedBytes: Math.max(MIN_BUFFERED_BYTES, 4 * limits.maxMessageBytes) });
  const handle = createNodeHttpHandler(acp, { maxRequestBodyBytes: limits.maxMessageBytes });
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxMessageBytes, perMessageDeflate: false, handleProtocols: (offered) => (offered.has('acp') ? 'acp' : false) });
  // Refused upgrades are answered by `ws` itself, with the gate's status.
  const refusals = new WeakMap();
  const refuser = new WebSocketServer({
    noServer: true,
    verifyClient: (info, done) => {
      const r = refusals.get(info.req);
      done(false, r.status, r.message, r.challenge ? { 'WWW-Authenticate': 'Bearer' } : {});
    },
  });
  const sockets = new Set();
  const refused = (kind, req, r) => log.info(`acp server: refused a ${kind} request from ${req.socket.remoteAddress}: ${r.status} ${r.message}`);

  const server = http.createServer((req, res) => {
    const admission = gate.admit(requestOf(req, false, live.size));
    if (admission.kind === 'refuse') {
      refused('HTTP', req, admission);
      res.writeHead(admission.status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close', ...(admission.challenge && { 'WWW-Authenticate': 'Bearer' }) });
      res.end(`${admission.message}\n`);
      req.resume();
      return;
    }
    handle(req, res);
  });
  server.on('upgrade', (req, socket, head) => {
    const admission = req.headers.upgrade?.toLowerCase() === 'websocket' ? gate.admit(requestOf(req, true, live.size)) : { kind: 'refuse', status: 400, message: 'only WebSocket upgrades are served' };
    if (admission.kind === 'refuse') {
      refused('WebSocket', req, admission);
      refusals.set(req, admission);
      refuser.handleUpgrade(req, socket, head, () => socket.destroy());
      return;
    }
    upgradeToAcp(req, socket, head);
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  /** The SDK's WebSocket connection, made before the upgrade is accepted (its id goes on the 101). */
  function upgradeToAcp(req, socket, head) {
    const upgrade = acp.prepareWebSocketUpgrade({ agent: wsAgent });
    let accepted = false;
    const onHeaders = (headers, request) => {
      if (request === req) headers.push(`${CONNECTION_HEADER}: ${upgrade.connectionId}`);
    };
    const failed = () => {
      if (accepted) return;
      cleanup();
      upgrade.reject();
    };
    const cleanup = () => {
      wss.off('headers', onHeaders);
      socket.off('close', failed);
      socket.off('error', failed);
    };
    wss.on('headers', onHeaders);
    socket.once('close', failed);
    socket.once('error', failed);
    try {
      wss.handleUpgrade(req, socket, head, (ws) => {
        accepted = true;
        cleanup();
        watchSocket(ws);
        upgrade.accept(ws);
      });
    } catch {
      failed();
      socket.destroy();
    }
  }

  /** Pings `ws`; closed when nothing came from it, not even a pong, within the idle bound. */
  function watchSocket(ws) {
    sockets.add(ws);
    let last = Date.now();
    const seen = () => {
      last = Date.now();
    };
    ws.on('pong', seen);
    ws.on('message', seen);
    const timer = setInterval(
      () => {
        if (Date.now() - last >= limits.idleMs) {
          log.info('acp server: closed a WebSocket that answered nothing within the idle bound');
          ws.terminate();
        } else ws.ping();
      },
      Math.max(5, Math.floor(limits.idleMs / 3)),
    );
    timer.unref?.();
    ws.once('close', () => {
      clearInterval(timer);
      sockets.delete(ws);
    });
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = gate.listening(server.address().port);
  let closing;
  const close = () => {
    closing ??= (async () => {
      server.close();
      for (const ws of sockets) ws.terminate();
      await acp.close().catch(() => {});
      server.closeAllConnections?.();
      // Every connection's agent gone (its process tree, for a stdio agent).
      for (let waited = 0; live.size > 0 && waited < CLOSE_WAIT_MS; waited += 25) await new Promise((resolve) => setTimeout(resolve, 25));
    })();
    return closing;
  };
  return { url, token: gate.token, close };
}

module.exports = { serveAgent };
