// One conversation served to its clients, Node only: the AgentSession that
// is its live end, the clients that opened, loaded or resumed it, and its
// numbered updates (the core's `__ServedLog`, src/serve/served_log.rs:
// what each event, update and record entry is sent as, and its `seq`).
// Turns run one at a time, in the order the clients' prompts arrived; the
// agent's permission and elicitation requests go to the client whose turn
// runs. This file keeps the clients and the queue and moves the updates;
// the core decides what they are.
'use strict';

const node = () => require('../core/agent_context_node.cjs');

/** The live end's state a response carries: its modes and options as ACP has them. */
function sessionState(session) {
  const out = {};
  if (session.modes.length > 0) out.modes = { currentModeId: session.mode ?? session.modes[0].id, availableModes: session.modes };
  if (session.configOptions.length > 0) out.configOptions = session.configOptions;
  return out;
}

class ServedConversation {
  /**
   * `session`: the AgentSession (its live end); `family`: what routes the
   * agent's requests of this conversation and its forks (they share their
   * handlers); `epoch`: names this log's numbers.
   */
  constructor(session, family, epoch) {
    this.id = session.conversationId;
    this.session = session;
    this.family = family;
    this.log = new (node().__ServedLog)(this.id, epoch, session.sessionId, session.agentType);
    this.clients = new Map(); // connection → { sent }: the last seq it was sent
    this.queue = []; // prompts waiting, in arrival order
    this.running = null; // { conn, … } of the turn that runs
    family.members.add(this);
    family.focus = this;
  }

  /** The record's entries this log has not seen (the conversation's earlier life, or another host's turns). */
  catchUp() {
    const { entries, cursor } = this.session.history({ after: this.log.recordCursor });
    this.send(this.log.record(entries, cursor));
  }

  /** An update of the session outside a turn's reply. */
  outside(update) {
    this.send(this.log.outside(update));
  }

  /**
   * `conn` opened, loaded or resumed the conversation: resolves once it
   * was sent what it is to see first (a load: the updates after `after`,
   * or all; a resume: those after `after`, or none), then it is sent every
   * update as it comes. Resolves `{ reset }`.
   */
  async join(conn, { after, epoch, resume }) {
    const { items, reset } = this.log.replay(after, epoch, resume);
    this.clients.set(conn, { sent: this.log.seq });
    conn.joined.add(this);
    for (const item of items) if (item.to !== 'notices' || conn.notices) conn.deliver(item.params);
    await conn.flush();
    return { reset };
  }

  leave(conn) {
    this.clients.delete(conn);
    conn.joined.delete(this);
    for (const job of this.queue.filter((j) => j.conn === conn)) this.drop(job);
  }

  /** Items to every client, each as its audience says (`prompter`: the client whose prompt it is). */
  send(items, prompter) {
    for (const item of items) {
      for (const [conn, state] of this.clients) {
        if (item.seq <= state.sent) continue;
        state.sent = item.seq;
        if (item.to === 'others' && conn === prompter) continue;
        if (item.to === 'notices' && !conn.notices) continue;
        conn.deliver(item.params);
      }
    }
  }

  /**
   * A turn of `blocks` (ACP content blocks) for `conn` (`promptId`: its
   * name for the turn, on each of its updates): resolves `{ result }` or
   * `{ error }`, after the turns before it.
   */
  prompt(conn, blocks, promptId) {
    return new Promise((resolve) => {
      this.queue.push({ conn, blocks, promptId, resolve });
      this.pump();
    });
  }

  /** A queued prompt given up: it ends `cancelled`, never sent. */
  drop(job) {
    this.queue.splice(this.queue.indexOf(job), 1);
    job.resolve(node().__servedPromptOutcome({ success: false, error: { kind: 'aborted' } }, this.log.state()));
  }

  async pump() {
    if (this.running || this.queue.length === 0) return;
    const job = this.queue.shift();
    this.running = job;
    this.family.focus = this;
    let turn;
    try {
      this.send(this.log.beginTurn(this.log.turn + 1, job.blocks, job.promptId), job.conn);
      turn = await this.session.prompt(job.blocks, { onEvent: (event) => this.event(event, job) });
    } catch (err) {
      turn = { success: false, error: { kind: err?.kind ?? 'invalid_params', message: err?.message ?? String(err) } };
    }
    const { entries, cursor } = this.session.history({ after: this.log.recordCursor });
    const asked = entries.find((e) => e.kind === 'request');
    const ended = { success: turn.success === true, error: turn.error, turn: asked?.turn ?? this.log.turn - 1 };
    this.send(this.log.endTurn(ended, cursor), job.conn);
    this.running = null;
    const { success, stopReason, error, handedOffTo } = turn;
    job.resolve(node().__servedPromptOutcome({ success, stopReason, error, handedOffTo }, this.log.state()));
    this.pump();
  }

  event(event, job) {
    this.send(this.log.event(event), job.conn);
    // The conversation went on with another agent: its state for the clients.
    if (event.type === 'handoff') this.moved();
  }

  /** The live end is another agent session now: its mode, options and commands for the clients. */
  moved() {
    const s = this.session;
    this.send(this.log.part({ sessionId: s.sessionId, agentType: s.agentType, mode: s.mode, configOptions: s.configOptions, commands: s.commands }));
  }

  /** `session/cancel` from `conn`: the running turn, and `conn`'s queued prompts. */
  async cancel(conn) {
    for (const job of this.queue.filter((j) => j.conn === conn)) this.drop(job);
    if (this.running) await this.session.cancel();
  }

  /** Whether nothing needs the agent session: no client, no turn. */
  get idle() {
    return this.clients.size === 0 && !this.running && this.queue.length === 0;
  }

  async close() {
    for (const job of [...this.queue]) this.drop(job);
    this.family.members.delete(this);
    await this.session.close();
  }
}

module.exports = { ServedConversation, sessionState };
