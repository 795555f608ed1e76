// A conversation forked at a turn (`session.fork`), Node only: a new
// conversation whose record opens with its parent's up to that turn (the
// core copies it), on the same agent or another one; its first turn
// carries the conversation, unless the agent forks its own session (ACP
// `session/fork`, at the last turn), which holds it already.
'use strict';

const { inputError, describe } = require('../host/agent-process.cjs');

const node = () => require('../core/agent_context_node.cjs');

async function fork(api, conv, session, options, opened) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw inputError(`fork options must be an object, got ${describe(options)}`);
  const turns = conv.machine.turns;
  const atTurn = options.atTurn ?? turns;
  if (!Number.isInteger(atTurn) || atTurn < 1 || atTurn > turns) {
    throw inputError(`fork: options.atTurn must be a turn of this conversation (1 to ${turns}), got ${describe(options.atTurn)}`);
  }
  const p = conv.part;
  const caps = Object.keys(p.snapshot.capabilities ?? {}).length > 0 ? p.snapshot.capabilities : p.host.engine.processInfo()?.capabilities;
  const own = options.agent == null && p.plan.protocol !== 'cli' && caps?.sessionCapabilities?.fork != null && atTurn === turns;
  const live = conv.machine.live();
  const agent = options.agent ?? live.agent;
  const setup = { id: require('node:crypto').randomUUID(), createdAt: Date.now(), agent, options: conv.host.base };
  const machine = node().__Conversation.forked(setup, conv.machine.record, atTurn, conv.machine.id, session.sessionId, options.options, options.agent != null, own);
  const host = { ...conv.host, writer: undefined };
  if (own) {
    // The agent's own fork: a new session on the same process, holding the history.
    host.adopt = async () => {
      const next = p.host.engine.addSession({});
      const done = await p.host.run((now) => p.host.engine.input({ type: 'forkSession', source: p.key ?? 0, session: next }, now));
      if (!done.failed) return { host: p.host, plan: p.plan, key: next, snapshot: done.opened };
      await p.host.run((now) => p.host.engine.input({ type: 'closeSession', session: next }, now));
      return { failed: done.failed };
    };
  }
  const forked = await opened(api, machine, host);
  forked.forkedFrom = { conversationId: conv.machine.id, sessionId: session.sessionId, atTurn };
  return forked;
}

module.exports = { fork };
