// A conversation, Node only: the core's machine (`__Conversation`,
// src/conversation/) decides which agent session runs each turn, what it
// carries and what is recorded; this file carries out its actions — opens
// and closes the agents' sessions (engines started by ./run.cjs), sends
// the turns, calls the app's callbacks — and keeps the record on its way
// to the store (../record/record-writer.cjs).
'use strict';

const { startEngine, release, secretsOf } = require('./run.cjs');
const { readOutputSchema, answer } = require('./structured.cjs');
const { materialize } = require('../host/attachments.cjs');
const { RecordWriter } = require('../record/record-writer.cjs');
const { inputError, describe } = require('../host/agent-process.cjs');

const node = () => require('../core/agent_context_node.cjs');

/** An operation that failed (`{ kind, message }`), as an Error to throw. */
function agentError(failed) {
  const { AgentContextError } = require('../core/agent_context.cjs');
  const code = failed.kind === 'invalid_params' ? 'INVALID_INPUT' : 'AGENT_ERROR';
  const err = new AgentContextError(code, failed.message.replace(/^invalid parameters: /, ''));
  err.kind = failed.kind;
  err.retryable = failed.retryable ?? false;
  return err;
}

/** Seconds, as the options take them, to milliseconds; `fallback` when not given. */
function seconds(value, name, fallback) {
  if (value == null) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw inputError(`${name} must be a positive number of seconds, got ${describe(value)}`);
  return Math.round(value * 1000);
}

class Conversation {
  /**
   * `machine`: the core's; `host`: `{ env, onPermission, onElicitation,
   * onUpdate, warn, secrets, store, writer }` (what JSON cannot carry);
   * `adopt(action)`: opens a part another way (a session forked on its
   * process) instead of starting an agent.
   */
  constructor(machine, host) {
    this.machine = machine;
    this.host = host;
    this.parts = new Map(); // part → { host, plan, key }
    this.live = undefined;
    this.asks = new Map(); // ask → its turn's state
    this.nextAsk = 0;
    this.waiting = null; // { resolve, reject } of an open or a handoff
    this.watchers = new Set();
    this.closing = [];
    this.hostError = null;
    this.record = new RecordWriter({
      store: host.store,
      id: machine.id,
      header: JSON.parse(machine.headerLine),
      writer: host.writer,
      onError: (error) => this.recordError(error),
    });
  }

  /** Feeds the machine, then carries out what it asks (in order). */
  feed(event) {
    this.machine.input(event, Date.now());
    for (const action of this.machine.take()) this.act(action);
  }

  /** Resolves once the machine says the conversation (or a handoff) is done. */
  until(event) {
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.feed(event);
    });
  }

  act(a) {
    const waiting = this.waiting;
    switch (a.type) {
      case 'openPart':
        return void this.openPart(a);
      case 'closePart':
        return void this.closePart(a.part, a.ends);
      case 'send':
        return void this.send(a);
      case 'event':
        return this.tell(this.asks.get(a.ask)?.onEvent, a.event);
      case 'done':
        return this.done(a);
      case 'write':
        return this.lines(a.lines, true);
      case 'opened':
      case 'handedOff':
        this.waiting = null;
        return waiting?.resolve(a);
      case 'failed':
      case 'handoffFailed':
        this.waiting = null;
        return waiting?.reject(agentError(a));
    }
  }

  /** Lines of the record: the machine's own (`own`) or a part's. */
  lines(lines, own = false) {
    if (!own) this.machine.lines(lines);
    this.record.add(lines);
    for (const pump of this.watchers) pump();
  }

  async openPart({ part, agent, options, resume, record }) {
    const h = this.host;
    let opened;
    try {
      opened = h.adopt ? await h.adopt(part) : await this.start(agent, resume != null ? { ...options, sessionId: resume } : options);
      // A fallback's or a handoff's own `env`: its values are secrets of its record too.
      if (options.env != null) opened.secrets = [...h.secrets, ...secretsOf(options.env, options.endpoint)];
    } catch (err) {
      if (err?.name !== 'AgentContextError') throw err;
      return this.feed({ type: 'openFailed', part, kind: err.kind ?? 'invalid_params', message: err.message });
    }
    h.adopt = undefined;
    if (opened.failed) return this.feed({ type: 'openFailed', part, kind: opened.failed.kind, message: opened.failed.message });
    const { host, key } = opened;
    this.parts.set(part, opened);
    host.records.set(key ?? 0, (lines) => this.lines(lines));
    this.machine.input({ type: 'opened', part, sessionId: opened.snapshot.sessionId ?? undefined }, Date.now());
    host.feed((e, now) => e.input({ type: 'record', session: key ?? 0, start: record, secrets: opened.secrets ?? h.secrets }, now));
    this.live = part;
    for (const action of this.machine.take()) this.act(action);
  }

  /** An agent started and its session opened: `{ host, plan, snapshot }`, or `{ failed }`. */
  async start(agent, given) {
    const h = this.host;
    // The agent's own environment (a fallback's or a handoff's `env`), else the conversation's.
    const { env = h.env, ...options } = given;
    // What JSON cannot carry through the core's machine (a host's `exec` function): the app's own value.
    const baseHost = h.base?.host;
    if (options.host != null && baseHost != null && JSON.stringify(options.host) === JSON.stringify(baseHost)) options.host = baseHost;
    if (env === null || typeof env !== 'object' || Array.isArray(env)) return { failed: { kind: 'invalid_params', message: `options.env must be an object, got ${describe(env)}` } };
    const started = await startEngine(agent, options, { env, onPermission: h.onPermission, onElicitation: h.onElicitation, onUpdate: h.onUpdate, onHostError: (err) => (this.hostError ??= err), warn: h.warn });
    if (started.failed !== undefined) return { failed: { kind: 'invalid_params', message: started.failed } };
    const { host, plan } = started;
    const done = await host.run((now) => host.engine.input({ type: 'open' }, now));
    if (done.failed) {
      await host.run((now) => host.engine.input({ type: 'close' }, now));
      await host.closedPromise;
      host.engine.free();
      return { failed: done.failed };
    }
    release(host);
    return { host, plan, snapshot: done.opened };
  }

  /** Closes part `part`: `ends`, the conversation with it (its record says so); else it is no longer recorded. */
  closePart(part, ends) {
    const p = this.parts.get(part);
    if (!p) return;
    if (!ends) this.parts.delete(part);
    const session = p.key ?? 0;
    if (!ends) {
      p.host.records.delete(session);
      p.host.feed((e, now) => e.input({ type: 'stopRecording', session }, now));
    }
    const op = p.key === undefined ? { type: 'close' } : { type: 'closeSession', session };
    this.closing.push(p.host.run((now) => p.host.engine.input(op, now)).then(() => p.key === undefined && p.host.closedPromise));
  }

  /** The live part: `{ host, plan, key, snapshot }`. */
  get part() {
    return this.parts.get(this.live);
  }

  /** One turn of `request` (`turn`: its options, checked); resolves its AgentTurn. */
  prompt(request, turn, continues = false) {
    const ask = ++this.nextAsk;
    return new Promise((resolve, reject) => {
      this.asks.set(ask, { request, turn, resolve, reject, onEvent: turn.onEvent });
      this.feed({ type: 'prompt', ask, continues });
    });
  }

  async send({ ask, part, handsOff, attemptsBefore }) {
    const a = this.asks.get(ask);
    const p = this.parts.get(part);
    const { host, plan, key } = p;
    const turn = a.turn;
    const session = key ?? 0;
    let prepared;
    let limits;
    let attachments;
    let schema;
    let traceparent;
    try {
      prepared = this.machine.prepare(a.request);
      for (const line of prepared.warnings ?? []) this.host.warn(line);
      schema = readOutputSchema(turn.outputSchema, plan.agentType, 'session', 'turn.outputSchema');
      if (turn.traceparent != null) traceparent = node().__checkTraceparent(turn.traceparent, 'turn.traceparent');
      limits = { idleMs: seconds(turn.timeout, 'turn.timeout', plan.idleTimeoutMs), maxMs: seconds(turn.maxDuration, 'turn.maxDuration', plan.maxDurationMs), maxRetries: plan.maxRetries, events: a.onEvent !== undefined };
      if (turn.attachments != null) attachments = host.channel ? await require('../remote/remote-start.cjs').attachmentsThere(host.channel, turn.attachments, plan.cd, null) : materialize(turn.attachments, { cd: require('node:path').resolve(plan.cd), scratch: null });
    } catch (err) {
      schema?.free();
      if (err?.name !== 'AgentContextError') return a.reject(err);
      const refused = node().__RunResult.invalid(plan.agentType, err.message);
      a.last = refused.toRun(0);
      refused.free();
      return this.feed({ type: 'turnDone', ask, success: false, kind: 'invalid_params' });
    }
    host.feed((e, now) => e.input({ type: 'conversation', session, handsOff, attemptsBefore: attemptsBefore ?? undefined }, now));
    const blocks = prepared.blocks;
    const at = blocks.map((b) => b?.type).lastIndexOf('text');
    const withText = (text) => (at >= 0 ? blocks.map((b, i) => (i === at ? { ...b, text } : b)) : text ? [...blocks, { type: 'text', text }] : blocks);
    const signal = turn.signal;
    let op;
    const onAbort = () => host.feed((e, now) => e.input({ type: 'abort', op }, now));
    const send = async (text, turnTrace, n) => {
      const done = await host.run((now) => {
        if (n === 0 && prepared.recordAs != null) host.engine.input({ type: 'recordNextAs', session, text: prepared.recordAs }, now);
        op = host.engine.prompt(n === 0 ? withText(text) : [{ type: 'text', text }], { ...limits, traceparent: turnTrace }, now, key, n === 0 ? attachments : undefined);
        if (signal?.aborted) host.engine.input({ type: 'abort', op }, now);
        else signal?.addEventListener('abort', onAbort, { once: true });
        return op;
      }, a.onEvent);
      signal?.removeEventListener('abort', onAbort);
      const err = this.hostError;
      this.hostError = null;
      if (err) throw err;
      return done.turn;
    };
    const trace = { agent: plan.agentType, model: p.snapshot.model ?? undefined, traceparent: traceparent ?? this.host.traceparent };
    let result;
    try {
      result = await answer({ schema, text: at >= 0 ? blocks[at].text : '', send, trace, maxRetries: plan.maxRetries, sessionCost: plan.protocol !== 'cli' });
    } catch (err) {
      this.asks.delete(ask);
      return a.reject(err);
    }
    p.snapshot = key === undefined ? host.engine.snapshot() : (host.engine.snapshotOf(key) ?? p.snapshot);
    if (prepared.context) result.context = prepared.context;
    a.last = result;
    this.feed({ type: 'turnDone', ask, success: result.success === true, kind: result.error?.kind, message: result.error?.message, sessionId: p.snapshot.sessionId ?? undefined });
  }

  async done({ ask, handedOffTo, continues }) {
    const a = this.asks.get(ask);
    this.asks.delete(ask);
    const result = a.last;
    // A turn that waited for one before it, and never ran: the session closed, or no agent is left.
    if (result === undefined) return a.reject(inputError('the session was closed, or has no agent left, before this turn ran'));
    if (handedOffTo) result.handedOffTo = { agentType: handedOffTo.agentType, sessionId: handedOffTo.sessionId ?? undefined };
    // A team member's turn that went on with the agent of that entry of its fallback (the team plans it there).
    if (continues) result.continues = handedOffTo.fallbackIndex;
    // The turn's lines tried in the store once more: `recorded` says whether it holds them.
    if (this.host.store) {
      await this.record.write();
      result.recorded = this.record.unwritten === 0;
    }
    a.resolve(result);
  }

  /** A write the store refused: the running turn's `onEvent` hears it, else `onUpdate`. */
  recordError(error) {
    const event = { type: 'recordError', error };
    const running = [...this.asks.values()].find((a) => a.onEvent);
    if (running) this.tell(running.onEvent, event);
    else this.tell(this.host.onUpdate, event);
  }

  tell(callback, event) {
    try {
      callback?.(event);
    } catch (err) {
      process.emitWarning(`a callback threw on a ${event.type} event: ${err?.message ?? err}`);
    }
  }

  /** `{ entries, cursor, skipped }` of the whole conversation after `after`. */
  history(options) {
    return this.machine.history(options ?? {});
  }

  /** Calls `onEntry` with each entry after `after`, now and as they come; returns `unwatch()`. */
  watch(options, onEntry) {
    if (typeof onEntry !== 'function') throw inputError(`onEntry must be a function, got ${typeof onEntry}`);
    let cursor = options?.after ?? 0;
    const pump = () => {
      const { entries, cursor: next } = this.machine.history({ after: cursor });
      cursor = next;
      for (const entry of entries) this.tell(onEntry, entry);
    };
    pump();
    this.watchers.add(pump);
    return () => this.watchers.delete(pump);
  }

  /** The live part and every part closing, then the record let go (rejects when lines are left unwritten). */
  async close() {
    this.feed({ type: 'close' });
    await Promise.allSettled(this.closing);
    this.watchers.clear();
    await this.record.close();
  }
}

module.exports = { Conversation, agentError, seconds };
