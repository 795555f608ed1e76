#!/usr/bin/env node
// A scripted ACP agent for the client's own features (tests/acp/client.test.cjs),
// built on the official SDK's agent side (its unstable entry, for
// session/fork), so that what our client sends and answers is checked
// against the protocol's schema. It is a peer for our client, never a
// stand-in for a real agent's output. Given to the library as an
// AgentDefinition. What it was sent and answered is appended to the file
// named by CLIENT_AGENT_LOG, one JSON line each. Its turns, by a word of
// the prompt:
//   ASK     a form elicitation (which database?); the reply says the answer
//   ASKURL  a URL elicitation
//   WAITASK a form elicitation, then nothing until it is answered
//   RUN     a client terminal running node in `sub/`: its output, exit,
//           release; the reply quotes them
//   HOLD    a terminal whose process keeps running (its pid in the
//           output), released at once; the reply gives the pid
//   KEEP    a terminal left running; the turn waits to be cancelled
//   PLAN    a plan with three entries, then text
//   HANG    nothing until the turn is cancelled
//   SCHEMA  JSON in the shape the prompt's JSON Schema asks for, but only
//           from the corrective turn on; NEVER: never in that shape
//   COMPACT a compaction of its context (compaction_update in_progress, the
//           summary in two compaction_summary_chunks, completed), no text:
//           a compact command's turn; its summary counts the characters of
//           the session's earlier prompts (and quotes none of them)
//   NOTICE  a notice (warning), then text
//   CANCELPERM a permission request the agent cancels after 300 ms
//           ($/cancel_request, the SDK's cancellationSignal); the reply says
//           the answer it got
//   CANCELASK  the same with a form elicitation
//   READ <path> the client's file at <path>, quoted
// Anything else: "Hello from turn N". With CLIENT_AGENT_OVER_QUOTA set,
// every prompt fails as a model API over its quota does (an internal error
// naming HTTP 429); set to `text`, it says the API's error as text first
// (as Claude Code's adapter does); set to `tool`, it says a line, runs a
// tool call to its end and says another line first. It advertises
// session/delete, logout and additionalDirectories, unless
// CLIENT_AGENT_PLAIN is set; a terminal login when the client advertises
// auth.terminal. Every line it reads is also logged raw (`method: 'raw'`),
// to count the answers to one request. With CLIENT_AGENT_MODES set, a new
// session offers two modes (ask, code) and a boolean option (fast), and
// session/set_mode takes either mode.
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk/unstable';

const log = (entry) => fs.appendFileSync(process.env.CLIENT_AGENT_LOG, `${JSON.stringify(entry)}\n`);
const plain = Boolean(process.env.CLIENT_AGENT_PLAIN);
log({ method: 'env', params: { TRACEPARENT: process.env.TRACEPARENT ?? null } });
const sessions = new Map();
const cancelled = new Set();
let next = 0;
const newSession = (cwd) => {
  next += 1;
  // Unique across processes, as agents' session ids are.
  const sessionId = `client-session-${process.pid}-${next}`;
  sessions.set(sessionId, { turns: 0, cwd });
  return sessionId;
};

const app = acp
  .agent({ name: 'client-features-agent' })
  .onRequest('initialize', ({ params }) => {
    log({ method: 'initialize', params });
    const terminalLogin = params.clientCapabilities?.auth?.terminal === true;
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: plain
        ? { loadSession: false, sessionCapabilities: { fork: {}, close: {} } }
        : { loadSession: false, sessionCapabilities: { fork: {}, close: {}, delete: {}, additionalDirectories: {} }, auth: { logout: {} } },
      authMethods: terminalLogin ? [{ id: 'tui-login', name: 'Log in in a terminal', type: 'terminal', args: ['--login'], env: { LOGIN_MODE: 'tui' } }] : [],
    };
  })
  .onRequest('session/delete', ({ params }) => {
    log({ method: 'session/delete', params });
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest('session/set_config_option', ({ params }) => {
    log({ method: 'session/set_config_option', params });
    return { configOptions: [{ id: params.configId, name: params.configId, type: 'boolean', currentValue: params.value }] };
  })
  .onRequest('logout', ({ params }) => {
    log({ method: 'logout', params });
    return {};
  })
  .onRequest('session/new', ({ params }) => {
    log({ method: 'session/new', params });
    const sessionId = newSession(params.cwd);
    if (!process.env.CLIENT_AGENT_MODES) return { sessionId };
    return {
      sessionId,
      modes: { currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }, { id: 'code', name: 'Code' }] },
      configOptions: [{ id: 'fast', name: 'Fast', type: 'boolean', currentValue: false }],
    };
  })
  .onRequest('session/set_mode', ({ params }) => {
    log({ method: 'session/set_mode', params });
    if (!['ask', 'code'].includes(params.modeId)) throw acp.RequestError.invalidParams({ modeId: params.modeId });
    return {};
  })
  .onRequest('session/fork', ({ params }) => {
    log({ method: 'session/fork', params });
    const from = sessions.get(params.sessionId);
    const sessionId = newSession(params.cwd);
    sessions.get(sessionId).turns = from?.turns ?? 0;
    return { sessionId };
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
    const sessionId = params.sessionId;
    const text = params.prompt.map((b) => b.text ?? '').join('');
    const say = (piece) => client.notify('session/update', { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: piece } } });
    const ask = async (request) => {
      const answer = await client.request('elicitation/create', { sessionId, ...request });
      log({ method: 'elicitation answer', params: answer });
      return answer;
    };
    const waitCancel = async () => {
      for (let i = 0; i < 400 && !cancelled.has(sessionId); i += 1) await new Promise((r) => setTimeout(r, 25));
      cancelled.delete(sessionId);
      return { stopReason: 'cancelled' };
    };
    const session = sessions.get(sessionId);
    session.turns += 1;
    session.said = [...(session.said ?? []), text];
    if (/\bCOMPACT\b/.test(text)) {
      const compactionId = `compaction-${session.turns}`;
      const update = (u) => client.notify('session/update', { sessionId, update: u });
      const words = session.said.slice(0, -1).join(' / ');
      await update({ sessionUpdate: 'compaction_update', compactionId, status: 'in_progress' });
      await update({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text: 'In the earlier turns ' } });
      await update({ sessionUpdate: 'compaction_summary_chunk', compactionId, content: { type: 'text', text: `the user wrote ${words.length} characters.` } });
      await update({ sessionUpdate: 'compaction_update', compactionId, status: 'completed' });
      return { stopReason: 'end_turn' };
    }
    if (/\bNOTICE\b/.test(text)) {
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'notice', severity: 'warning', title: 'Falling back to a smaller model', description: 'The large one is busy.' } });
      await say('Noted.');
      return { stopReason: 'end_turn' };
    }
    if (/\bCANCELPERM\b|\bCANCELASK\b/.test(text)) {
      const giveUp = new AbortController();
      const timer = setTimeout(() => {
        log({ method: 'cancelling', params: { at: Date.now() } });
        giveUp.abort();
      }, 300);
      const permission = /\bCANCELPERM\b/.test(text);
      const request = permission
        ? client.request('session/request_permission', {
            sessionId,
            toolCall: { toolCallId: 'edit-1', title: 'Edit notes.txt', kind: 'edit' },
            options: [{ optionId: 'ok', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }],
          }, { cancellationSignal: giveUp.signal })
        : client.request('elicitation/create', { sessionId, mode: 'form', message: 'Which database?', requestedSchema: { type: 'object', properties: { db: { type: 'string' } } } }, { cancellationSignal: giveUp.signal });
      let answer;
      try {
        answer = { result: await request };
      } catch (err) {
        answer = { error: { code: err.code, message: err.message } };
      }
      clearTimeout(timer);
      log({ method: 'cancelled request answer', params: { ...answer, at: Date.now() } });
      // Time for a late second answer to show in the raw log.
      await new Promise((r) => setTimeout(r, 2500));
      await say(`answered ${JSON.stringify(answer.result ?? answer.error)}`);
      return { stopReason: 'end_turn' };
    }
    const read = /\bREAD (\S+)/.exec(text);
    if (read) {
      try {
        const file = await client.request('fs/read_text_file', { sessionId, path: read[1] });
        await say(`file says: ${file.content}`);
      } catch (err) {
        await say(`refused: ${err.code} ${err.message}`);
      }
      return { stopReason: 'end_turn' };
    }
    if (/\bASKURL\b/.test(text)) {
      const answer = await ask({ mode: 'url', message: 'Sign in to continue', url: 'https://example.test/login', elicitationId: 'login-1' });
      await say(`Sign-in: ${answer.action}`);
      return { stopReason: 'end_turn' };
    }
    if (/\bASK\b/.test(text) || /\bWAITASK\b/.test(text)) {
      const answer = ask({
        mode: 'form',
        message: 'Which database should the service use?',
        requestedSchema: { type: 'object', properties: { db: { type: 'string', enum: ['postgres', 'sqlite'] } }, required: ['db'] },
      });
      if (/\bWAITASK\b/.test(text)) {
        answer.then((a) => log({ method: 'late answer', params: a }), () => {});
        return waitCancel();
      }
      const got = await answer;
      await say(got.action === 'accept' ? `You chose ${got.content.db}.` : `Elicitation: ${got.action}`);
      return { stopReason: 'end_turn' };
    }
    if (/\bRUN\b/.test(text)) {
      const { terminalId } = await client.request('terminal/create', {
        sessionId,
        command: process.execPath,
        args: ['-e', 'console.log("cwd=" + process.cwd()); console.error("to stderr"); process.exit(3)'],
        cwd: path.join(session.cwd, 'sub'),
        outputByteLimit: 4096,
      });
      const exit = await client.request('terminal/wait_for_exit', { sessionId, terminalId });
      const output = await client.request('terminal/output', { sessionId, terminalId });
      await client.request('terminal/release', { sessionId, terminalId });
      log({ method: 'terminal', params: { exit, output } });
      await say(`terminal said ${JSON.stringify(output.output)} and exited ${exit.exitCode}`);
      return { stopReason: 'end_turn' };
    }
    if (/\bHOLD\b/.test(text) || /\bKEEP\b/.test(text)) {
      const { terminalId } = await client.request('terminal/create', {
        sessionId,
        command: process.execPath,
        args: ['-e', 'console.log("pid=" + process.pid); setInterval(() => {}, 1000)'],
      });
      let output = '';
      for (let i = 0; i < 200 && !/pid=\d+/.test(output); i += 1) {
        await new Promise((r) => setTimeout(r, 25));
        output = (await client.request('terminal/output', { sessionId, terminalId })).output;
      }
      log({ method: 'terminal', params: { output } });
      if (/\bKEEP\b/.test(text)) {
        await say(output.trim());
        return waitCancel();
      }
      await client.request('terminal/release', { sessionId, terminalId });
      await say(output.trim());
      return { stopReason: 'end_turn' };
    }
    if (process.env.CLIENT_AGENT_OVER_QUOTA) {
      const how = process.env.CLIENT_AGENT_OVER_QUOTA;
      if (how === 'text') await say('API Error: Request rejected (429) · rate limited');
      if (how === 'tool') {
        await say('Let me look.');
        const toolCallId = `tool-${session.turns}`;
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call', toolCallId, title: 'Read notes.txt', kind: 'read', status: 'pending', rawInput: { path: 'notes.txt' } } });
        await client.notify('session/update', { sessionId, update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', rawOutput: 'The launch code is 4217.' } });
        await say('The notes say');
      }
      throw acp.RequestError.internalError(undefined, 'HTTP 429: You exceeded your current quota, please check your plan and billing details');
    }
    if (/\bHANG\b/.test(text)) {
      await say('Working on it');
      return waitCancel();
    }
    if (/\bPLAN\b/.test(text)) {
      const entries = [
        { content: 'Read the parser', priority: 'high', status: 'completed' },
        { content: 'Fix the bug', priority: 'high', status: 'in_progress' },
        { content: 'Write the test', priority: 'medium', status: 'pending' },
      ];
      await client.notify('session/update', { sessionId, update: { sessionUpdate: 'plan', entries } });
      await say('Planned.');
      return { stopReason: 'end_turn' };
    }
    if (/\bSCHEMA\b|\bNEVER\b/.test(text) || /did not match the JSON Schema/.test(text)) {
      const schema = /JSON Schema, and nothing else[^\n]*\n(.*)$/s.exec(text)?.[1];
      const corrective = /did not match the JSON Schema/.test(text);
      const never = [...sessions.values()].some((s) => s.never) || /\bNEVER\b/.test(text);
      if (/\bNEVER\b/.test(text)) session.never = true;
      if (schema && corrective && !session.never) await say(JSON.stringify({ verdict: 'ship', score: 7 }));
      else await say(never ? 'I would rather not answer in JSON.' : '```json\n{"verdict": "maybe"}\n```');
      return { stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 4, totalTokens: 14 } };
    }
    await say(`Hello from turn ${session.turns}`);
    return { stopReason: 'end_turn' };
  });

// Every line read, logged raw as well (to count the answers to one request).
let partial = '';
const input = Readable.toWeb(process.stdin).pipeThrough(
  new TransformStream({
    transform(chunk, out) {
      partial += Buffer.from(chunk).toString('utf8');
      const lines = partial.split('\n');
      partial = lines.pop();
      for (const line of lines) if (line.trim()) log({ method: 'raw', params: { line, at: Date.now() } });
      out.enqueue(chunk);
    },
  }),
);
const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), input);
const connection = app.connect(stream);
await connection.closed;
process.exit(0);
