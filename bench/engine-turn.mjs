// One ACP turn through the session engine with no process: the executor
// (pkg/node/engine-host.cjs, the one runAgent and openAgentSession use)
// drives `__Engine`, but its child is a fake whose stdin answers the
// engine's requests at once (initialize, session/new, anything else `{}`)
// and holds session/prompt's id. The caller then pushes the recorded
// `session/update` bytes into the engine's stdout as the executor would on
// each chunk, and ends the turn with `end_turn`. Used by
// bench/scenarios/acp-parse.mjs.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import os from 'node:os';

const require = createRequire(import.meta.url);
const { EngineHost } = require('../pkg/node/engine-host.cjs');
const { __Engine: Engine, __Conversation: Conversation } = require('../pkg/node/agent_context_node.js');

const SESSION = 'bench-session';
const CD = os.tmpdir();

/** A fake agent child for `host`: answers the setup requests written to it. */
function fakeChild(host, state) {
  const say = (message) => host.feed((e, now) => e.stdout(Buffer.from(`${JSON.stringify(message)}\n`), now));
  return {
    pid: 1,
    kill() {},
    stdin: {
      destroyed: false,
      writableEnded: false,
      end() {
        this.writableEnded = true;
      },
      on() {},
      write(data) {
        for (const line of String(data).split('\n')) {
          if (line.trim() === '') continue;
          const message = JSON.parse(line);
          if (message.id === undefined || message.method === undefined) continue; // our answers to the agent
          if (message.method === 'initialize') say({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
          else if (message.method === 'session/new') say({ jsonrpc: '2.0', id: message.id, result: { sessionId: SESSION } });
          else if (message.method === 'session/prompt') state.promptId = message.id;
          else say({ jsonrpc: '2.0', id: message.id, result: {} });
        }
        return true;
      },
    },
  };
}

/**
 * A turn of `agentType` over `chunks` (Buffers of recorded lines): returns
 * `{ events, last, turn }`: how many events an onEvent received (none
 * without one), the last of them and the engine's turn result. `onEvent`:
 * whether the caller passes one; `recorded`: the session is recorded as a
 * session's is (the conversation machine keeps count of its lines), and
 * `recorded.writer`, a store's writer, is given each line as the engine
 * hands it over (no batching: the most writes a turn can make);
 * `{ recordBytes }` then says how many bytes they came to.
 */
export function engineTurn(agentType, chunks, onEvent, recorded = false) {
  // No onPermission, no onUpdate: as runAgent makes it.
  const engine = Engine.session(agentType, { cd: CD }, '', false, false);
  const plan = engine.plan();
  const host = new EngineHost(engine, { env: {} });
  let recordBytes = 0;
  if (recorded) {
    // What a recorded run does (js/api/run.cjs, recordRun): the conversation's
    // machine opens its part, the engine records the session from its start.
    const machine = new Conversation({ id: 'bench-conversation', createdAt: Date.now(), agent: agentType, options: {} });
    machine.input({ type: 'start' }, Date.now());
    const open = machine.take().find((a) => a.type === 'openPart');
    machine.input({ type: 'opened', part: open.part }, Date.now());
    const append = (lines) => {
      recordBytes += lines.length;
      recorded.writer?.append(lines);
    };
    for (const a of machine.take()) if (a.type === 'write') append(a.lines);
    host.records.set(0, (lines) => {
      machine.lines(lines);
      append(lines);
    });
    engine.input({ type: 'record', session: 0, start: open.record, secrets: [] }, Date.now());
  }
  const state = { promptId: undefined };
  host.spawn = () => {
    host.child = fakeChild(host, state);
    engine.input({ type: 'spawned' }, Date.now());
  };
  let events = 0;
  let last;
  let turn;
  // No retry: a turn that fails ends at once.
  const limits = { idleMs: plan.idleTimeoutMs, maxMs: plan.maxDurationMs, maxRetries: 0, events: onEvent };
  // What host.run does, with the done action kept at once rather than through a promise.
  const op = engine.prompt([{ type: 'text', text: 'hi' }], limits, Date.now());
  host.ops.set(op, { resolve: (action) => (turn = action.turn), onEvent: onEvent ? (event) => ((events += 1), (last = event)) : undefined });
  host.step();
  assert.notEqual(state.promptId, undefined, 'the engine sent session/prompt');
  for (const chunk of chunks) host.feed((e, now) => e.stdout(chunk, now));
  const end = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: state.promptId, result: { stopReason: 'end_turn' } })}\n`);
  host.feed((e, now) => e.stdout(end, now));
  assert.ok(turn, 'the turn ended');
  if (host.timer) clearTimeout(host.timer);
  host.closed = true;
  engine.free();
  return { events, last, turn, recordBytes };
}
