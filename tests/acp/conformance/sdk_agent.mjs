#!/usr/bin/env node
// An ACP agent built on the official SDK's agent side, for the conformance
// test (tests/acp/conformance.test.cjs): the SDK parses and validates every
// message our client sends against the protocol's schema, and answers as
// the protocol says. It is a reference peer for our JSON-RPC client, never a
// stand-in for a real agent's output. What it was sent is appended to the
// file named by SDK_AGENT_LOG, one JSON line per request or notification.
// It lists the sessions it holds (session/list). With SDK_AGENT_SESSIONS
// set it also offers session/resume, for the
// sessions whose ids that file lists (one a line, kept across its
// processes, as an agent keeps its sessions on disk). A prompt with CRASH
// in it ends the process; one with COMPACT sends a compaction and a notice
// (ACP 1.25's updates, as the SDK's schema has them). It advertises
// session/delete, logout and additionalDirectories, and takes boolean
// config options.
import fs from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const log = (entry) => fs.appendFileSync(process.env.SDK_AGENT_LOG, `${JSON.stringify(entry)}\n`);
const sessions = new Map();
let next = 0;
const cancelled = new Set();
const store = process.env.SDK_AGENT_SESSIONS;
const stored = () => (store && fs.existsSync(store) ? fs.readFileSync(store, 'utf8').split('\n').filter(Boolean) : []);

const app = acp
  .agent({ name: 'sdk-reference-agent' })
  .onRequest('initialize', ({ params }) => {
    log({ method: 'initialize', params });
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: true,
        promptCapabilities: { image: true, embeddedContext: true },
        sessionCapabilities: { close: {}, list: {}, delete: {}, additionalDirectories: {}, ...(store ? { resume: {} } : {}) },
        auth: { logout: {} },
      },
      authMethods: [],
    };
  })
  .onRequest('session/new', ({ params }) => {
    log({ method: 'session/new', params });
    next += 1;
    const sessionId = `sdk-session-${process.pid}-${next}`;
    sessions.set(sessionId, { turns: 0, cwd: params.cwd });
    if (store) fs.appendFileSync(store, `${sessionId}\n`);
    return {
      sessionId,
      modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
    };
  })
  .onRequest('session/load', async ({ params, client }) => {
    log({ method: 'session/load', params });
    if (!sessions.has(params.sessionId)) sessions.set(params.sessionId, { turns: 0 });
    await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'replayed history' } } });
    return {};
  })
  .onRequest('session/resume', ({ params }) => {
    log({ method: 'session/resume', params });
    if (!stored().includes(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (!sessions.has(params.sessionId)) sessions.set(params.sessionId, { turns: 0 });
    return {};
  })
  .onRequest('session/list', ({ params }) => {
    log({ method: 'session/list', params });
    const listed = [...sessions].filter(([, s]) => s.cwd && (!params.cwd || s.cwd === params.cwd));
    return { sessions: listed.map(([sessionId, s]) => ({ sessionId, cwd: s.cwd })) };
  })
  .onRequest('session/delete', ({ params }) => {
    log({ method: 'session/delete', params });
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest('logout', ({ params }) => {
    log({ method: 'logout', params });
    return {};
  })
  .onRequest('session/set_config_option', ({ params }) => {
    log({ method: 'session/set_config_option', params });
    return { configOptions: [{ id: params.configId, name: 'Fast', type: 'boolean', currentValue: params.value }] };
  })
  .onRequest('session/set_mode', ({ params }) => {
    log({ method: 'session/set_mode', params });
    return {};
  })
  .onRequest('session/close', ({ params }) => {
    log({ method: 'session/close', params });
    sessions.delete(params.sessionId);
    return {};
  })
  .onNotification('session/cancel', ({ params }) => {
    log({ method: 'session/cancel', params });
    cancelled.add(params.sessionId);
  })
  .onRequest('session/prompt', async ({ params, client }) => {
    log({ method: 'session/prompt', params });
    const text = params.prompt.map((b) => b.text ?? '').join('');
    const say = (piece) => client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: piece } } });
    if (text.includes('CRASH')) process.exit(3); // a process that dies in a turn
    if (text.includes('COMPACT')) {
      const update = (u) => client.notify('session/update', { sessionId: params.sessionId, update: u });
      await update({ sessionUpdate: 'compaction_update', compactionId: 'k1', status: 'in_progress' });
      await update({ sessionUpdate: 'compaction_summary_chunk', compactionId: 'k1', content: { type: 'text', text: 'Summary so far.' } });
      await update({ sessionUpdate: 'notice', severity: 'info', title: 'Context compacted' });
      await update({ sessionUpdate: 'compaction_update', compactionId: 'k1', status: 'completed' });
      return { stopReason: 'end_turn' };
    }
    if (text.includes('WAIT')) {
      for (let i = 0; i < 200 && !cancelled.has(params.sessionId); i += 1) await new Promise((r) => setTimeout(r, 25));
      cancelled.delete(params.sessionId);
      return { stopReason: 'cancelled' };
    }
    if (text.includes('TOOL')) {
      await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Read notes', kind: 'read', status: 'pending' } });
      const permission = await client.request('session/request_permission', {
        sessionId: params.sessionId,
        toolCall: { toolCallId: 't1', title: 'Read notes', kind: 'read' },
        options: [{ optionId: 'yes-once', name: 'Yes', kind: 'allow_once' }, { optionId: 'no', name: 'No', kind: 'reject_once' }],
      });
      log({ method: 'permission answer', params: permission });
      const file = await client.request('fs/read_text_file', { sessionId: params.sessionId, path: 'notes.txt' });
      await client.notify('session/update', { sessionId: params.sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed', content: [{ type: 'content', content: { type: 'text', text: file.content } }] } });
      await say(`notes say: ${file.content}`);
      return { stopReason: 'end_turn' };
    }
    const session = sessions.get(params.sessionId);
    session.turns += 1;
    await say('Hello ');
    await say(`from turn ${session.turns}`);
    return { stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } };
  });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
const connection = app.connect(stream);
await connection.closed;
process.exit(0);
