// AgentTeam, Node only: a team conversation in which each member is an agent
// with its own session (openAgentSession, ./session.cjs). Every decision is
// the core's team machine (`__TeamMachine`, src/team/): when a member's
// session is opened, resumed or found lost, what each turn sends, what its
// mark becomes, what joins the transcript, which endpoint its sessions
// take. This file executes its actions — opens the sessions, sends the
// prompts, closes — and feeds back what happened. It keeps what is not
// data: the session options (functions, environments, endpoints' keys),
// the open sessions and the pending asks. Shipped as pkg/node/team.cjs; the
// Node entry requires it when it loads (it requires nothing until a team
// is made).
'use strict';

const { describe } = require('../host/describe.cjs');

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The session options a member may have of its own, beside its identity (`host`: the machine it runs on). */
const OWN = ['endpoint', 'env', 'model', 'command', 'host', 'fallback'];

/** The options of `fallback[i]` (an agent type, a definition, or `{ agent, options }`). */
function fallbackOptions(entry) {
  return isObject(entry) && 'agent' in entry && isObject(entry.options) ? entry.options : {};
}

/** Values a team's record never holds: the environments' values, the endpoints' keys and headers. */
function secretsOf(run, members) {
  const { secretsOf: of } = require('./run.cjs');
  const out = of(run.env, run.endpoint);
  for (const m of Array.isArray(members) ? members : []) {
    if (!isObject(m)) continue;
    out.push(...of(m.env, m.endpoint));
    for (const f of Array.isArray(m.fallback) ? m.fallback : []) out.push(...of(fallbackOptions(f).env, fallbackOptions(f).endpoint));
  }
  return out;
}

/** Defines the class over the Node entry's exports (`api`). */
function defineAgentTeam(api) {
  const inputError = (message) => new api.AgentContextError('INVALID_INPUT', message);
  const checks = () => require('../host/option-check.cjs');
  const core = () => require('../core/agent_context_node.cjs');

  function optionalString(value, name) {
    if (value != null && typeof value !== 'string') throw inputError(`${name} must be a string, got ${describe(value)}`);
    return value ?? undefined;
  }

  /**
   * What a member object holds that JSON cannot carry faithfully, checked
   * here (the core reads the rest); returns its own session options.
   */
  function ownOptions(given, name, warn) {
    if (!isObject(given)) throw inputError(`${name} must be an object, got ${describe(given)}`);
    checks().warnUnknownKeys('a team member', given, warn);
    const { maxBytes, env, command } = given;
    if (maxBytes != null && (typeof maxBytes !== 'number' || !Number.isFinite(maxBytes) || maxBytes < 0)) {
      throw inputError(`${name}.maxBytes must be a finite number >= 0, got ${describe(maxBytes)}`);
    }
    if (env != null && !isObject(env)) throw inputError(`${name}.env must be an object, got ${describe(env)}`);
    const badEnv = env != null && checks().envProblem(env, `${name}.env`);
    if (badEnv) throw inputError(badEnv);
    optionalString(command, `${name}.command`);
    checks().warnUnknownKeys("a team member's endpoint", given.endpoint, warn);
    const own = {};
    for (const key of OWN) if (given[key] !== undefined) own[key] = given[key];
    return own;
  }

  /** Debug lines go where `logger` sends them, as the core's calls do. */
  function debugOf(logger) {
    if (typeof logger === 'function') return (message) => logger(message, 'debug');
    if (logger && typeof logger.warn === 'function') {
      const method = ['debug', 'log', 'warn'].find((m) => typeof logger[m] === 'function');
      return (message) => logger[method](message);
    }
    return (message) => console.log(message);
  }

  /** What `fromJSON` and `open` hand the constructor (no caller can make one); `taken`: the team's record, reopened. */
  class Restoring {
    constructor(data, teamId, taken) {
      this.data = data;
      this.teamId = teamId;
      this.taken = taken;
    }
  }

  class AgentTeam {
    #machine;
    #run;
    #warn;
    #debug;
    /** Member id → its own session options. */
    #own = new Map();
    /** Member id → its open session. */
    #sessions = new Map();
    /** Member id → what opening or prompting its session threw. */
    #thrown = new Map();
    /** Ask id → `{ resolve, reject, turnOptions, turn }`. */
    #asks = new Map();
    /** Member id → the agents its conversation goes on with (`next` of its last `open`). */
    #next = new Map();
    /** The team's own record (with a store). */
    #record;
    #teamId;

    /**
     * `options`: `{ teamTask, cd, members, ...sessionOptions }`; the session
     * options (command, env, endpoint, timeout, onPermission, …) apply to
     * every member's session, a member's own (`endpoint`, `env`, `model`,
     * `command`) over them.
     */
    constructor(options, restoring) {
      if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
      this.#warn = checks().loggerOf(options);
      this.#debug = debugOf(options.logger);
      checks().warnUnknownKeys('AgentTeam options', options, this.#warn);
      checks().warnEndpointKeys(options, this.#warn);
      const { teamTask, members, ...run } = options;
      this.#run = run;
      const { checkStore } = require('../record/record-writer.cjs');
      const store = checkStore(run.store, 'options.store');
      const debug = /^(1|true)$/.test(process.env.DEBUG ?? '');
      const picked = { endpoint: run.endpoint, protocol: run.protocol, model: run.model };
      if (typeof run.cd !== 'string' || run.cd === '') throw inputError(`options.cd must be a non-empty string, got ${describe(run.cd)}`);
      if (restoring instanceof Restoring) {
        const given = members ?? [];
        if (!Array.isArray(given)) throw inputError(`options.members must be an array, got ${describe(given)}`);
        given.forEach((m, i) => {
          const own = ownOptions(m, `options.members[${i}]`, this.#warn);
          if (typeof m.id === 'string') this.#own.set(m.id, own);
        });
        this.#machine = core().__TeamMachine.fromJSON(restoring.data, run.cd, picked, given, debug);
        if (store) this.#recordIn(store, restoring.teamId, restoring.taken, secretsOf(run, given));
        return;
      }
      const task = optionalString(teamTask, 'options.teamTask') ?? undefined;
      if (!Array.isArray(members)) throw inputError(`options.members must be an array, got ${describe(members)}`);
      this.#machine = new (core().__TeamMachine)(task, run.cd, picked, debug);
      if (store) this.#recordIn(store, undefined, undefined, secretsOf(run, members));
      members.forEach((m, i) => this.#join(m, `options.members[${i}]`));
    }

    /** Keeps the team's record in `store` (`taken`: the one it goes on). */
    #recordIn(store, teamId, taken, secrets) {
      const { RecordWriter } = require('../record/record-writer.cjs');
      this.#teamId = teamId ?? require('node:crypto').randomUUID();
      const header = { format: 'agent-context/session-record', version: '2.0', conversationId: this.#teamId, createdAt: Date.now() };
      this.#record = new RecordWriter({ store, id: this.#teamId, header, writer: taken?.writer, onError: (err) => this.#warn(`the team's record could not be written to its store: ${err?.message ?? err}`) });
      this.#machine.record(this.#teamId, taken?.bytes, secrets, Date.now());
      this.#drain();
    }

    /** The id of the team's record in its store (with `store`), for `AgentTeam.open`. */
    get teamId() {
      return this.#teamId;
    }

    #join(member, path) {
      const own = ownOptions(member, path, this.#warn);
      this.#feed({ type: 'addMember', member, path });
      this.#own.set(member.id, own);
    }

    /** Adds a member; its first turn gets the whole history that concerns it. */
    addMember(member) {
      this.#join(member, 'member');
    }

    /** The team task. */
    get teamTask() {
      return this.#machine.toJSON().teamTask;
    }

    /** The members: `{ id, agentType, …, sessionId?, mark }`, copies. */
    get members() {
      return this.#machine.toJSON().members;
    }

    /** Every message, oldest first (a copy). */
    get transcript() {
      return this.#machine.toJSON().transcript;
    }

    /**
     * A person's or an outside message: `{ from, to?, content }` (`to`
     * missing, empty or `'all'`: everyone). Members speak through `ask`.
     */
    post(message) {
      if (!isObject(message)) throw inputError(`message must be an object, got ${describe(message)}`);
      return this.#feed({ type: 'post', message });
    }

    /**
     * Runs one turn of `memberId`: the prompt the core plans for it (full on
     * a fresh session, else only what is new), on its session; its reply
     * joins the transcript (to `replyTo`, else everyone). Turns of one
     * member run one after another.
     */
    ask(memberId, options = {}) {
      return new Promise((resolve, reject) => {
        if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
        checks().warnUnknownKeys('team.ask options', options, this.#warn);
        const { message, replyTo, ...turnOptions } = options;
        const ask = this.#machine.feed(
          {
            type: 'ask',
            member: String(memberId),
            message: optionalString(message, 'options.message'),
            replyTo: optionalString(replyTo, 'options.replyTo'),
          },
          Date.now(),
        );
        this.#asks.set(ask, { resolve, reject, turnOptions, turn: undefined });
        this.#drain();
      });
    }

    /** Feeds an event, then executes what the machine says; returns its answer. */
    #feed(event) {
      const answer = this.#machine.feed(event, Date.now());
      this.#drain();
      return answer;
    }

    #drain() {
      for (const action of this.#machine.take()) this.#execute(action);
    }

    #execute(action) {
      switch (action.type) {
        case 'open':
          this.#open(action);
          break;
        case 'prompt':
          this.#prompt(action);
          break;
        case 'close': {
          const session = this.#sessions.get(action.member);
          this.#sessions.delete(action.member);
          session?.close().catch(() => {});
          break;
        }
        case 'done': {
          const ask = this.#settle(action.ask);
          const { handedOffTo, ...context } = action.context;
          const to = handedOffTo && { agentType: handedOffTo.agentType, sessionId: ask?.turn?.sessionId };
          ask?.resolve({ ...ask.turn, ...(to ? { handedOffTo: to } : {}), context });
          break;
        }
        case 'record':
          this.#record?.add(action.lines);
          break;
        case 'fail': {
          const ask = this.#settle(action.ask);
          const opening = this.#thrown.get(action.member);
          this.#thrown.delete(action.member);
          const causes = { error: action.error, open: opening, prompt: ask?.thrown };
          ask?.reject(causes[action.cause]);
          break;
        }
        case 'log':
          if (action.level === 'warn') this.#warn(action.text);
          else this.#debug(action.text);
          break;
      }
    }

    #settle(id) {
      const ask = this.#asks.get(id);
      this.#asks.delete(id);
      return ask;
    }

    /**
     * The team's session options, the member's own over them (or those of
     * the fallback entry it runs), then the machine's (`action`: an `open`,
     * or one of its `next`); `agentOnly`: only what belongs to the agent.
     */
    #sessionOptions(member, action, agentOnly = false) {
      const { endpoint, store: _s, ...options } = agentOnly ? {} : this.#run;
      const mine = this.#own.get(member) ?? {};
      const own = action.fallback > 0 ? fallbackOptions(mine.fallback?.[action.fallback - 1]) : mine;
      for (const key of ['env', 'model', 'command', 'host']) if (own[key] != null) options[key] = own[key];
      if (action.endpoint === 'team') options.endpoint = this.#run.endpoint;
      if (action.endpoint === 'own') options.endpoint = own.endpoint;
      options.protocol = action.protocol;
      options.systemPrompt = action.systemPrompt ?? undefined;
      if (!agentOnly && action.sessionId != null) options.sessionId = action.sessionId;
      return options;
    }

    async #open(action) {
      const { openAgentSession } = require('./session.cjs');
      const options = this.#sessionOptions(action.member, action);
      // Its conversation goes on with these agents when its own fails (the
      // conversation decides when; the team plans what the turn carries).
      this.#next.set(action.member, action.next);
      options.fallback = action.next.map((n) => ({ agent: n.agent, options: this.#sessionOptions(action.member, n, true) }));
      const record = this.#record;
      // A member's conversation goes on in the store; an agent session it cannot reopen is a new part of it (the team plans what it is sent).
      if (record) options.store = record.store;
      if (record && action.conversationId != null) options.rebuild = true;
      let session;
      try {
        const member = { teamId: this.#teamId, memberId: action.member, conversationId: record ? (action.conversationId ?? undefined) : undefined, hostCarries: true };
        session = await openAgentSession(api, action.agent, options, record ? member : { hostCarries: true });
      } catch (err) {
        this.#thrown.set(action.member, err);
        this.#feed({ type: 'openFailed', member: action.member, kind: typeof err?.kind === 'string' ? err.kind : undefined });
        return;
      }
      this.#sessions.set(action.member, session);
      const at = session.__conversation.machine.live()?.fallbackIndex ?? 0;
      const fallback = at > 0 ? action.next[at - 1]?.fallback : undefined;
      this.#feed({ type: 'opened', member: action.member, sessionId: session.sessionId, conversationId: record ? session.conversationId : undefined, fallback });
    }

    async #prompt(action) {
      const ask = this.#asks.get(action.ask);
      const session = this.#sessions.get(action.member);
      let turn;
      try {
        // A turn that went on with another agent goes on: the session's own continuation.
        turn = await (action.continues ? session.__conversation.prompt(action.request, ask?.turnOptions ?? {}, true) : session.prompt(action.request, ask?.turnOptions));
      } catch (err) {
        if (ask) ask.thrown = err;
        this.#feed({ type: 'promptFailed', member: action.member });
        return;
      }
      if (ask) ask.turn = turn;
      // The turn went on with another agent of its conversation: the team plans it there.
      const moved = turn.continues ? this.#next.get(action.member)?.[turn.continues - 1]?.fallback : undefined;
      this.#feed({
        type: 'turnDone',
        member: action.member,
        success: turn.success === true,
        text: turn.reply?.text ?? undefined,
        kind: turn.error?.kind ?? undefined,
        sessionId: session.sessionId,
        moved,
      });
    }

    /** Plain data to store: the team task, members with their marks and session ids, the transcript. */
    toJSON() {
      return this.#machine.toJSON();
    }

    /**
     * A team from `toJSON()`'s data (an object or its JSON text); `options`
     * are the session options (`cd` defaults to the stored one), with
     * `members: [{ id, endpoint?, env?, model?, command? }]` giving each
     * member's own again.
     */
    static fromJSON(json, options = {}) {
      const data = typeof json === 'string' ? JSON.parse(json) : json;
      if (!isObject(data)) throw inputError(`json must be an object or its JSON text, got ${describe(data)}`);
      if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
      const { teamTask: _t, ...rest } = options;
      return new AgentTeam({ cd: data.cd, ...rest }, new Restoring(data));
    }

    /**
     * The team recorded in `store` under `teamId` (`team.teamId`), brought
     * back as `fromJSON` brings back its data, and recorded there on;
     * `options` as `fromJSON`'s. A record another process writes is
     * `SESSION_LOCKED`; an id with no team's record, `INVALID_INPUT`.
     */
    static async open(store, teamId, options = {}) {
      const { checkStore } = require('../record/record-writer.cjs');
      checkStore(store, 'store');
      if (store == null) throw inputError('store must be a session store, got ' + describe(store));
      if (typeof teamId !== 'string' || teamId === '') throw inputError(`teamId must be a non-empty string, got ${describe(teamId)}`);
      if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
      if (!(await store.list({ kind: 'team' })).some((s) => s.conversationId === teamId)) throw inputError(`the store has no team "${teamId}"`);
      const taken = await require('../record/conversations.cjs').takeConversation(store, teamId);
      try {
        const data = core().__teamRecordJSON(Buffer.from(taken.bytes).toString());
        const { teamTask: _t, store: _s, ...rest } = options;
        return new AgentTeam({ cd: data.cd, ...rest, store }, new Restoring(data, teamId, taken));
      } catch (err) {
        await taken.writer.close();
        throw err;
      }
    }

    /** Closes every member's session (a later `fromJSON` resumes them where the agent can). */
    async close() {
      const open = [...this.#sessions.values()];
      this.#sessions.clear();
      this.#feed({ type: 'close' });
      await Promise.allSettled(open.map((s) => s.close()));
      await this.#record?.close();
    }

    async [Symbol.asyncDispose]() {
      await this.close();
    }
  }
  return AgentTeam;
}

module.exports = { defineAgentTeam };
