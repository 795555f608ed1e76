#!/usr/bin/env node
// A STUB ACP agent, only for measuring our process layer (the session
// engine's executor and openAgentSession) in bench/scenarios/session.mjs
// and store.mjs: it is no agent and tests nothing of an agent's behaviour.
// JSON-RPC on stdio, one message a line: `initialize`, `session/new` (a new
// session id each time), and `session/prompt` answered at once with
// `agent_message_chunk` updates (one, or STUB_CHUNKS) and `end_turn`; any
// other request gets `{}`. When STUB_PID_DIR is set, it writes an empty
// file named by its PID there, so that the benchmark can check that it is
// gone after close(). When the file
// STUB_QUOTA_FILE names exists, a prompt fails as a model API over its quota
// does (an internal error naming HTTP 429), for bench/scenarios/handoff.mjs.
// It exits when its stdin ends.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

if (process.env.STUB_PID_DIR) fs.writeFileSync(path.join(process.env.STUB_PID_DIR, String(process.pid)), '');
/** The `agent_message_chunk` updates of each turn's reply (STUB_CHUNKS, default 1). */
const CHUNKS = Number(process.env.STUB_CHUNKS ?? 1);
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
let sessions = 0;
let pending = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (data) => {
  pending += data;
  let at;
  while ((at = pending.indexOf('\n')) >= 0) {
    const line = pending.slice(0, at);
    pending = pending.slice(at + 1);
    if (line.trim() === '') continue;
    const message = JSON.parse(line);
    if (message.method === undefined || message.id === undefined) continue; // a notification or an answer
    if (message.method === 'initialize') {
      send({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    } else if (message.method === 'session/new') {
      sessions += 1;
      send({ jsonrpc: '2.0', id: message.id, result: { sessionId: `stub-${process.pid}-${sessions}` } });
    } else if (message.method === 'session/prompt' && process.env.STUB_QUOTA_FILE && fs.existsSync(process.env.STUB_QUOTA_FILE)) {
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'Internal error: HTTP 429: You exceeded your current quota' } });
    } else if (message.method === 'session/prompt') {
      const { sessionId } = message.params;
      for (let i = 0; i < CHUNKS; i++) send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'ok' } } } });
      send({ jsonrpc: '2.0', id: message.id, result: { stopReason: 'end_turn' } });
    } else {
      send({ jsonrpc: '2.0', id: message.id, result: {} });
    }
  }
});
process.stdin.on('end', () => process.exit(0));
