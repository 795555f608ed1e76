// AgentTeam, Node only: a team conversation in which each member is an agent
// with its own session (openAgentSession, ./session.cjs, opened on the
// member's first turn). What each turn sends is decided by the core
// (`planTeamTurn`, src/team/): the full prompt for the member on a fresh
// session, else only the new messages that concern it. This file moves the
// bytes and keeps the data: the transcript and each member's mark and
// session id, which `toJSON` hands to the host. Shipped as pkg/node/team.cjs;
// the Node entry requires it when it loads (it requires nothing until a
// team is made).
'use strict';

const JSON_VERSION = 1;

function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Defines the class over the Node entry's exports (`api`). */
function defineAgentTeam(api) {
  const inputError = (message) => new api.AgentContextError('INVALID_INPUT', message);
  const checks = () => require('./option-check.cjs');

  function optionalString(value, name) {
    if (value != null && typeof value !== 'string') throw inputError(`${name} must be a string, got ${describe(value)}`);
    return value ?? undefined;
  }

  function requiredString(value, name) {
    if (typeof value !== 'string' || value === '') throw inputError(`${name} must be a non-empty string, got ${describe(value)}`);
    return value;
  }

  /** A member as the team keeps it. */
  function readMember(given, name, warn) {
    if (!isObject(given)) throw inputError(`${name} must be an object, got ${describe(given)}`);
    checks().warnUnknownKeys('a team member', given, warn);
    // An agent type, or an agent definition / ACP registry entry (the core
    // reads it when the session opens); its id lays out the prompts.
    const definition = given.definition ?? undefined;
    if (definition !== undefined && !isObject(definition)) throw inputError(`${name}.definition must be an agent definition or an ACP registry entry (an object), got ${describe(definition)}`);
    if (definition !== undefined && given.agentType != null && given.agentType !== definition.id) {
      throw inputError(`${name}.agentType must be left out when ${name}.definition is given (its id is the member's agent type), got ${describe(given.agentType)}`);
    }
    const member = {
      id: requiredString(given.id, `${name}.id`),
      agentType: definition === undefined ? requiredString(given.agentType, `${name}.agentType`) : requiredString(definition.id, `${name}.definition.id`),
      definition,
      systemInstruction: optionalString(given.systemInstruction, `${name}.systemInstruction`),
      instructionFileText: optionalString(given.instructionFileText, `${name}.instructionFileText`),
      protocol: optionalString(given.protocol, `${name}.protocol`),
      maxBytes: given.maxBytes ?? undefined,
    };
    if (member.maxBytes !== undefined && (typeof member.maxBytes !== 'number' || !Number.isFinite(member.maxBytes) || member.maxBytes < 0)) {
      throw inputError(`${name}.maxBytes must be a finite number >= 0, got ${describe(member.maxBytes)}`);
    }
    return member;
  }

  function readMessage(message, name) {
    if (!isObject(message)) throw inputError(`${name} must be an object, got ${describe(message)}`);
    const out = { from: requiredString(message.from, `${name}.from`) };
    const to = optionalString(message.to, `${name}.to`);
    if (to !== undefined) out.to = to;
    if (typeof message.content !== 'string') throw inputError(`${name}.content must be a string, got ${describe(message.content)}`);
    out.content = message.content;
    return out;
  }

  const bytesOf = (output) => Buffer.byteLength(output.prompt) + (output.systemFlag === undefined ? 0 : Buffer.byteLength(output.systemFlag));

  class AgentTeam {
    #teamTask;
    #run;
    #warn;
    #members = new Map();
    #transcript = [];
    #closed = false;

    /**
     * `options`: `{ teamTask, cd, members, ...sessionOptions }`; the session
     * options (command, env, timeout, onPermission, …) apply to every
     * member's session.
     */
    constructor(options) {
      if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
      this.#warn = checks().loggerOf(options);
      checks().warnUnknownKeys('AgentTeam options', options, this.#warn);
      const { teamTask, members, ...run } = options;
      this.#teamTask = optionalString(teamTask, 'options.teamTask') ?? null;
      requiredString(run.cd, 'options.cd');
      this.#run = run;
      if (!Array.isArray(members)) throw inputError(`options.members must be an array, got ${describe(members)}`);
      members.forEach((m, i) => this.#add(readMember(m, `options.members[${i}]`, this.#warn)));
    }

    #add(member) {
      if (this.#members.has(member.id)) throw inputError(`a member named "${member.id}" is already on the team`);
      this.#members.set(member.id, { ...member, mark: null, sessionId: undefined, session: null, queue: Promise.resolve() });
    }

    /** Adds a member; its first turn gets the whole history that concerns it. */
    addMember(member) {
      this.#add(readMember(member, 'member', this.#warn));
    }

    /** The team task. */
    get teamTask() {
      return this.#teamTask;
    }

    /** The members: `{ id, agentType, …, sessionId?, mark }`, copies. */
    get members() {
      return [...this.#members.values()].map((m) => this.#memberData(m));
    }

    /** Every message, oldest first (a copy). */
    get transcript() {
      return this.#transcript.map((m) => ({ ...m }));
    }

    /**
     * A person's or an outside message: `{ from, to?, content }` (`to`
     * missing, empty or `'all'`: everyone). Members speak through `ask`.
     */
    post(message) {
      const read = readMessage(message, 'message');
      if (this.#members.has(read.from)) {
        throw inputError(`message.from is "${read.from}", a member of the team: a member's messages are its replies (team.ask)`);
      }
      this.#transcript.push(read);
      return this.#transcript.length - 1;
    }

    /**
     * Runs one turn of `memberId`: the prompt the core plans for it (full on
     * a fresh session, else only what is new), on its session; its reply
     * joins the transcript (to `replyTo`, else everyone). Turns of one
     * member run one after another.
     */
    ask(memberId, options = {}) {
      const member = this.#members.get(memberId);
      if (member === undefined) {
        return Promise.reject(inputError(`no member named ${JSON.stringify(memberId)} (members: ${[...this.#members.keys()].join(', ')})`));
      }
      if (!isObject(options)) return Promise.reject(inputError(`options must be an object, got ${describe(options)}`));
      if (this.#closed) return Promise.reject(inputError('the team is closed (AgentTeam.fromJSON(team.toJSON(), options) continues it)'));
      const turn = member.queue.then(() => this.#turn(member, options));
      member.queue = turn.then(
        () => undefined,
        () => undefined,
      );
      return turn;
    }

    async #open(member, sessionId, systemPrompt) {
      const { openAgentSession } = require('./session.cjs');
      const options = { ...this.#run };
      if (member.protocol !== undefined) options.protocol = member.protocol;
      if (sessionId !== undefined) options.sessionId = sessionId;
      if (systemPrompt !== undefined) options.systemPrompt = systemPrompt;
      return openAgentSession(api, member.definition ?? member.agentType, options);
    }

    /** The member's session, resumed when it has one; null when it must be new. */
    async #resume(member) {
      if (member.session !== null || member.sessionId === undefined) return member.session;
      try {
        member.session = await this.#open(member, member.sessionId);
      } catch (err) {
        if (err?.kind !== 'session_not_found') throw err;
        this.#lost(member);
      }
      return member.session;
    }

    #lost(member) {
      const session = member.session;
      member.session = null;
      member.sessionId = undefined;
      member.mark = null;
      session?.close().catch(() => {});
    }

    #plan(member, message, fresh) {
      const { id, agentType, systemInstruction, instructionFileText, maxBytes } = member;
      // A member given by its definition asks for the plain-text layout of an id the library does not know: no notice.
      const fallback = `[ContextManager] Unknown agentType "${agentType}", using PlainTextAssembler`;
      return api.planTeamTurn(
        {
          teamTask: this.#teamTask,
          transcript: this.#transcript,
          member: { id, agentType, systemInstruction, instructionFileText, maxBytes },
          mark: member.mark,
          fresh,
          message,
        },
        { logger: member.definition === undefined ? this.#run.logger : (message) => message !== fallback && this.#warn(message) },
      );
    }

    /** Plans and sends one prompt; `{ plan, turn }`. */
    async #send(member, message, turnOptions) {
      const session = await this.#resume(member);
      const fresh = session === null || member.mark === null || session.sessionId !== member.sessionId;
      const plan = this.#plan(member, message, fresh);
      let turn;
      if (session === null) {
        // A new session: the instructions Claude Code takes apart are its system prompt.
        member.session = await this.#open(member, undefined, plan.output.systemFlag);
        member.sessionId = member.session.sessionId;
        turn = await member.session.prompt(plan.output.prompt, turnOptions);
      } else {
        turn = await session.prompt(plan.output, turnOptions);
      }
      return { plan, turn };
    }

    async #turn(member, options) {
      checks().warnUnknownKeys('team.ask options', options, this.#warn);
      const { message, replyTo, ...turnOptions } = options;
      optionalString(message, 'options.message');
      optionalString(replyTo, 'options.replyTo');
      if (this.#closed) throw inputError('the team is closed (AgentTeam.fromJSON(team.toJSON(), options) continues it)');
      let { plan, turn } = await this.#send(member, message, turnOptions);
      if (turn.error?.kind === 'session_not_found') {
        // The agent lost the session: a new one, with the whole view.
        this.#lost(member);
        ({ plan, turn } = await this.#send(member, message, turnOptions));
      }
      if (turn.error?.kind === 'session_not_found') {
        this.#lost(member);
      } else {
        member.mark = plan.mark;
        member.sessionId = member.session?.sessionId ?? member.sessionId;
      }
      const text = turn.success ? turn.reply?.text ?? '' : '';
      if (text.trim() !== '') {
        const reply = { from: member.id, content: text };
        if (replyTo !== undefined) reply.to = replyTo;
        this.#transcript.push(reply);
      }
      const context = {
        kind: plan.kind,
        bytes: bytesOf(plan.output),
        messages: plan.sent.length,
        dropped: plan.dropped.map((i) => ({ ...this.#transcript[i] })),
        report: plan.report,
      };
      if (context.dropped.length > 0) {
        this.#warn(`[agent-context] ${member.id}'s prompt left out the ${context.dropped.length} oldest messages that concern it, to fit maxBytes ${plan.report.maxBytes}`);
      }
      return { ...turn, context };
    }

    #memberData(m) {
      const out = { id: m.id, agentType: m.agentType };
      for (const key of ['definition', 'systemInstruction', 'instructionFileText', 'protocol', 'maxBytes', 'sessionId']) {
        if (m[key] !== undefined) out[key] = m[key];
      }
      out.mark = m.mark;
      return out;
    }

    /** Plain data to store: the team task, members with their marks and session ids, the transcript. */
    toJSON() {
      return {
        version: JSON_VERSION,
        teamTask: this.#teamTask,
        cd: this.#run.cd,
        members: this.members,
        transcript: this.transcript,
      };
    }

    /** A team from `toJSON()`'s data (an object or its JSON text); `options` are the session options (`cd` defaults to the stored one). */
    static fromJSON(json, options = {}) {
      const data = typeof json === 'string' ? JSON.parse(json) : json;
      if (!isObject(data)) throw inputError(`json must be an object or its JSON text, got ${describe(data)}`);
      if (data.version !== JSON_VERSION) throw inputError(`json.version must be ${JSON_VERSION}, got ${describe(data.version)}`);
      if (!isObject(options)) throw inputError(`options must be an object, got ${describe(options)}`);
      if (!Array.isArray(data.members)) throw inputError(`json.members must be an array, got ${describe(data.members)}`);
      if (!Array.isArray(data.transcript)) throw inputError(`json.transcript must be an array, got ${describe(data.transcript)}`);
      const members = data.members.map((m) => {
        if (!isObject(m)) throw inputError(`json.members must hold objects, got ${describe(m)}`);
        const { sessionId: _s, mark: _m, ...member } = m;
        return member;
      });
      const team = new AgentTeam({ cd: data.cd, ...options, teamTask: data.teamTask, members });
      team.#transcript = data.transcript.map((m, i) => readMessage(m, `json.transcript[${i}]`));
      data.members.forEach((m, i) => {
        const member = team.#members.get(m.id);
        if (m.mark != null && (!Number.isInteger(m.mark) || m.mark < 0 || m.mark > team.#transcript.length)) {
          throw inputError(`json.members[${i}].mark must be a whole number up to the transcript's length, got ${describe(m.mark)}`);
        }
        member.mark = m.mark ?? null;
        member.sessionId = optionalString(m.sessionId, `json.members[${i}].sessionId`);
      });
      return team;
    }

    /** Closes every member's session (a later `fromJSON` resumes them where the agent can). */
    async close() {
      this.#closed = true;
      const sessions = [...this.#members.values()].map((m) => {
        const session = m.session;
        m.session = null;
        return session?.close();
      });
      await Promise.allSettled(sessions);
    }

    async [Symbol.asyncDispose]() {
      await this.close();
    }
  }
  return AgentTeam;
}

module.exports = { defineAgentTeam };
