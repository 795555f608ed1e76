// A conversation carried from one session to another, from its record:
// a session rebuilt for an agent that cannot resume, handed off to another
// agent, forked at a turn, or failed over to the next agent of `fallback`.
// The new session's first turn carries the recorded conversation assembled
// for its agent within its budget (the core's team planner on a fresh
// member: the same assembly as any full prompt); both records link. Node
// only; every decision of what the conversation is and how it is assembled
// is the core's.
'use strict';

const { inputError } = require('./agent-process.cjs');

const node = () => require('./agent_context_node.js');
const core = () => require('./agent_context.js');

/** Whether a turn ending with error kind `kind` goes on with the next agent of `fallback` (the core decides). */
const handsOff = (kind) => typeof kind === 'string' && node().__handsOff(kind);

/** The options a handed-off session keeps: the app's, not the agent's own (model, command, endpoint, session). */
const CARRIED_OPTIONS = ['cd', 'env', 'systemPrompt', 'mcpServers', 'onPermission', 'onElicitation', 'onUpdate', 'logger', 'timeout', 'maxDuration', 'maxRetries', 'host', 'store'];

/** The user's words of a request (what the record keeps of a carrying turn). */
function userTextOf(request) {
  if (typeof request === 'string') return request;
  if (Array.isArray(request)) return request.filter((b) => b?.type === 'text').map((b) => b.text).join('\n\n');
  if (request && typeof request === 'object') {
    if (typeof request.prompt === 'string') return request.prompt;
    return typeof request.currentMessage === 'string' ? request.currentMessage : '';
  }
  return '';
}

/**
 * `request` with `messages` (the carried conversation) before it, assembled
 * for `agentType` (a full prompt within its budget), and the turn's
 * `context`: `{ kind: 'full', carried, dropped, report, userText }`, and
 * `compacted: { compactionId, replacedTurns }` when the agent's compaction
 * summary stood for the earlier turns, else `from: 'all'` (every turn).
 */
function carried(agentType, messages, request, warn, compacted) {
  const userText = userTextOf(request);
  const input = request !== null && typeof request === 'object' && !Array.isArray(request) && typeof request.prompt !== 'string' ? request : null;
  const member = { id: 'agent', agentType };
  if (input?.systemInstruction != null) member.systemInstruction = input.systemInstruction;
  if (input?.instructionFileText != null) member.instructionFileText = input.instructionFileText;
  if (input?.maxBytes != null) member.maxBytes = input.maxBytes;
  const transcript = [...messages, ...(input?.contextMessages ?? [])];
  const plan = core().planTeamTurn({ transcript, member, fresh: true, message: userText, teamTask: input?.teamTask ?? null }, warn ? { logger: warn } : undefined);
  const context = { kind: plan.kind, carried: messages.length, dropped: plan.dropped.length, report: plan.report, userText };
  if (compacted) context.compacted = compacted;
  else context.from = 'all';
  if (Array.isArray(request)) {
    // The attachments stay; the text is the assembled prompt.
    const rest = request.filter((b) => b?.type !== 'text');
    return { request: [{ type: 'text', text: plan.output.prompt }, ...rest], context };
  }
  return { request: plan.output, context };
}

/** The conversation of `recordText` as it is carried (`{ messages, compacted? }`), the agent's messages from `agentType`, up to turn `upTo`. */
function conversationOf(recordText, agentType, upTo) {
  return node().__recordCarry(recordText, agentType, upTo);
}

/** The agent type a record's session ran (its `opened` entry), else `fallback`. */
function agentTypeOf(entries, fallback) {
  return entries.find((e) => e.kind === 'opened')?.agentType ?? fallback;
}

/**
 * A session rebuilt for an agent that could not resume the recorded one:
 * `taken` is the old record (`{ prior, writer, entries }`). Its record links
 * to the new session, the new one's to it, and the new one's first turn
 * carries the conversation.
 */
async function carryInto(session, taken, how) {
  const c = session.__carry;
  const oldId = taken.entries.find((e) => e.agentSessionId)?.agentSessionId ?? c.options?.sessionId ?? '';
  const { messages, compacted } = conversationOf(taken.prior, agentTypeOf(taken.entries, session.agentType));
  c.link(`${how}From`, String(oldId), session.agentType);
  const linkOld = async (id) => {
    try {
      await taken.writer.append(node().__recordLinkLines(taken.prior, `${how}To`, id, session.agentType, Date.now()));
    } finally {
      await taken.writer.close();
    }
  };
  session.rebuiltFrom = String(oldId);
  if (session.sessionId) {
    await linkOld(session.sessionId);
    c.set({ messages, compacted });
  } else {
    c.set({ messages, compacted, linkBack: linkOld });
  }
}

/** `from`'s options that a session on another agent keeps, then `options`. */
function carriedOptions(from, options) {
  const given = from.__carry.options ?? {};
  const out = {};
  for (const key of CARRIED_OPTIONS) if (given[key] !== undefined) out[key] = given[key];
  if (out.cd === undefined) out.cd = from.__carry.plan.cd;
  if (out.store === undefined && from.__carry.record?.store) out.store = from.__carry.record.store;
  return { ...out, ...(options ?? {}) };
}

/** A new session on `agent` carrying `from`'s conversation; `from` stays open (the caller closes it). */
async function handoff(api, from, agent, options) {
  if (options != null && (typeof options !== 'object' || Array.isArray(options))) throw inputError('handoff: options must be an object');
  const c = from.__carry;
  if (!c.record) throw inputError('handoff: this session is not recorded');
  const { messages, compacted } = conversationOf(c.record.text, from.agentType);
  const next = await require('./session.cjs').openAgentSession(api, agent, carriedOptions(from, options));
  next.__carry.link('handedOffFrom', from.sessionId ?? '', from.agentType);
  const linkBack = (id) => c.link('handedOffTo', id, next.agentType);
  if (next.sessionId) linkBack(next.sessionId);
  next.__carry.set({ messages, compacted, linkBack: next.sessionId ? undefined : linkBack });
  next.handedOffFrom = from.sessionId;
  from.handedOffTo = next;
  return next;
}

/** A new session on the same agent holding `session`'s conversation up to turn `atTurn` (all when undefined). */
async function forkFromRecord(session, atTurn) {
  const c = session.__carry;
  const { messages, compacted } = conversationOf(c.record.text, session.agentType, atTurn);
  const forked = await c.reopen({});
  forked.__carry.link('forkedFrom', session.sessionId ?? '', session.agentType);
  const linkBack = (id) => c.link('forkedTo', id, forked.agentType);
  if (forked.sessionId) linkBack(forked.sessionId);
  forked.__carry.set({ messages, compacted, linkBack: forked.sessionId ? undefined : linkBack });
  forked.forkedFrom = session.sessionId;
  return forked;
}

/** `fallback` as `{ agent, options }` entries. */
function fallbackList(fallback) {
  if (!Array.isArray(fallback)) throw inputError(`options.fallback must be an array of agents (or { agent, options }), got ${typeof fallback}`);
  return fallback.map((f, i) => {
    if (typeof f === 'string') return { agent: f };
    if (f && typeof f === 'object' && 'agent' in f) {
      if (f.options != null && (typeof f.options !== 'object' || Array.isArray(f.options))) throw inputError(`options.fallback[${i}].options must be an object`);
      return { agent: f.agent, options: f.options };
    }
    if (f && typeof f === 'object') return { agent: f }; // an AgentDefinition
    throw inputError(`options.fallback[${i}] must be an agent type, an AgentDefinition or { agent, options }, got ${f === null ? 'null' : typeof f}`);
  });
}

/**
 * `openAgentSession` with `fallback`: the session opens on the first agent
 * that opens; a turn that ends in quota, auth, a missing command or an
 * upstream error past its retries is run again on the next agent by a
 * handoff, the turn's result says `handedOffTo`, and the session goes on
 * there (its methods and fields are the current agent's).
 */
async function withFallback(api, agentType, options) {
  const { openAgentSession } = require('./session.cjs');
  const queue = fallbackList(options.fallback);
  const { fallback: _f, ...first } = options;
  let current;
  let reason;
  try {
    current = await openAgentSession(api, agentType, first);
  } catch (err) {
    if (!handsOff(err?.kind) || queue.length === 0) throw err;
    reason = err;
  }
  while (!current) {
    const next = queue.shift();
    try {
      current = await openAgentSession(api, next.agent, { ...first, ...(next.options ?? {}), sessionId: undefined, model: next.options?.model });
    } catch (err) {
      if (!handsOff(err?.kind) || queue.length === 0) throw err ?? reason;
    }
  }
  async function prompt(request, turn = {}) {
    let result = await current.prompt(request, turn);
    while (!result.success && handsOff(result.error?.kind) && queue.length > 0) {
      const next = queue.shift();
      const from = current;
      let to;
      try {
        to = await handoff(api, from, next.agent, next.options);
      } catch (err) {
        (first.logger ?? console.warn)(`[agent-context] the fallback ${typeof next.agent === 'string' ? next.agent : next.agent?.id} could not be opened: ${err?.message ?? err}`);
        continue;
      }
      const event = { type: 'handoff', reason: result.error.kind, from: { agentType: from.agentType, sessionId: from.sessionId }, to: { agentType: to.agentType, sessionId: to.sessionId } };
      try {
        turn?.onEvent?.(event);
      } catch (err) {
        process.emitWarning(`onEvent threw on a handoff: ${err?.message ?? err}`);
      }
      current = to;
      await from.close();
      result = await to.prompt(request, turn);
      result.handedOffTo = { agentType: to.agentType, sessionId: to.sessionId };
    }
    return result;
  }
  return new Proxy(
    {},
    {
      get(_, prop) {
        if (prop === 'prompt') return prompt;
        const value = current[prop];
        return typeof value === 'function' ? value.bind(current) : value;
      },
      has: (_, prop) => prop in current,
      ownKeys: () => Reflect.ownKeys(current),
      getOwnPropertyDescriptor: (_, prop) => {
        const d = Reflect.getOwnPropertyDescriptor(current, prop);
        return d && { ...d, configurable: true };
      },
    },
  );
}

module.exports = { carried, carryInto, handoff, forkFromRecord, withFallback };
