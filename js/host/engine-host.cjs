// The session engine's executor, Node only: the one place that spawns an
// agent, writes to it, kills it, keeps its timer and asks the host's
// callbacks, for every agent and protocol (`__Engine`, src/engine/:
// sessions, runAgent, the Gemini tool, the MCP tools). Every decision is
// the core's; this file carries out its actions (`pollAll()`) and feeds it
// what happened, with the time.
'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawnAgent } = require('./spawn-agent.cjs');
const { removeRunFolder, writeRunFiles } = require('./option-check.cjs');
const { TerminalHost } = require('./terminals.cjs');

/** How long a probe of the endpoint (on this machine) waits for the connection: a
 * loopback address answers at once, listening or not; a timeout lets the attempt go on. */
const PROBE_MS = 2000;

/** `file` with symbolic links resolved, through its nearest existing folder when it does not exist yet. */
function realPath(file) {
  let dir = file;
  const rest = [];
  for (let i = 0; i < 4096; i += 1) {
    try {
      return path.join(fs.realpathSync(dir), ...rest.reverse());
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return file;
      rest.push(path.basename(dir));
      dir = parent;
    }
  }
  return file;
}

/**
 * Drives one `__Engine`. `env`: the caller's environment for the child;
 * `launchEnv`: the launcher's variables; `onPermission(params)`,
 * `onUpdate(update, sessionKey)`, `onHostError(err)`: the host's callbacks
 * (`sessionKey`: the session's on an engine of several);
 * `runFolder`: the run's own folder, removed when the engine closes.
 */
class EngineHost {
  constructor(engine, { env, launchEnv, onPermission, onElicitation, onUpdate, onHostError, runFolder, warn }) {
    this.warn = warn;
    this.onElicitation = onElicitation;
    this.terminals = new TerminalHost(this, realPath); // the agent's client terminals
    this.engine = engine;
    this.runFolder = runFolder; // removed once the engine closes
    this.env = env;
    this.launchEnv = launchEnv ?? {};
    this.onPermission = onPermission;
    this.onUpdate = onUpdate;
    this.onHostError = onHostError ?? (() => {});
    this.ops = new Map(); // op → { resolve, onEvent }
    this.asking = new Map(); // host call → its AbortController (the agent may cancel it)
    this.records = new Map(); // session key → what takes its record's lines (a conversation, ../api/conversation.cjs)
    this.child = null;
    this.timer = null;
    this.closed = false;
    this.closedPromise = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
  }

  /** Starts operation `start(now)` of the engine; resolves its `done` action. */
  run(start, onEvent) {
    return new Promise((resolve) => {
      const op = start(Date.now());
      this.ops.set(op, { resolve, onEvent });
      this.step();
    });
  }

  /** Feeds the engine (`feed(engine, now)`), then carries out what it asks. */
  feed(feed) {
    feed(this.engine, Date.now());
    this.step();
  }

  step() {
    if (this.stepping) return; // the running step takes what this one would
    this.stepping = true;
    try {
      for (let actions = this.engine.pollAll(); actions.length > 0; actions = this.closed ? [] : this.engine.pollAll()) {
        for (const action of actions) this.act(action);
      }
    } finally {
      this.stepping = false;
    }
    this.arm();
  }

  arm() {
    const at = this.closed ? undefined : this.engine.pollTimeout();
    if (at === undefined) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      return;
    }
    // A timer set for this time or earlier stays (an agent's every chunk
    // moves its idle deadline): woken early, the engine finds nothing due
    // and the host sets the timer again.
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.feed((e, now) => e.timeout(now));
    }, Math.max(0, at - Date.now()));
  }

  act(action) {
    switch (action.kind) {
      case 'spawn':
        return this.spawn(action);
      case 'connect':
        // An agent served elsewhere: its connection (../transport/transport-channel.cjs).
        return this.connector.connect(action, this);
      case 'write': {
        const child = this.child;
        if (!child || child.stdin.writableEnded) return undefined;
        if (!child.stdin.destroyed) {
          child.stdin.write(action.data);
          return undefined;
        }
        // Its stdin went with it (Node destroys it at the exit, which the
        // engine hears of two loop turns after the close): what was to be
        // written never reached it, as after EPIPE, and the engine is told
        // so before it hears of the exit.
        process.nextTick(() => {
          if (this.child === child) this.feed((e, now) => e.input({ type: 'writeFailed' }, now));
        });
        return undefined;
      }
      case 'closeStdin':
        if (this.child && !this.child.stdin.writableEnded) this.child.stdin.end();
        return undefined;
      case 'kill':
        if (this.child) this.child.kill();
        return undefined;
      case 'host':
        return this.host(action);
      case 'cancelHost':
        // The agent cancelled the request (already answered): the app's callback is aborted.
        this.asking.get(action.call)?.abort(new Error('the agent cancelled its request'));
        this.asking.delete(action.call);
        return undefined;
      case 'terminal':
        return this.terminals.act(action);
      case 'probe':
        return this.probe(action);
      case 'event': {
        const op = this.ops.get(action.op);
        if (op?.onEvent) {
          try {
            op.onEvent(action.event);
          } catch (err) {
            this.onHostError(err, action.op);
          }
        }
        return undefined;
      }
      case 'warn':
        (this.warn ?? console.warn)(action.message);
        return undefined;
      case 'record':
        this.records.get(action.session)?.(action.lines);
        return undefined;
      case 'update':
        if (this.onUpdate) {
          try {
            this.onUpdate(action.update, action.session);
          } catch (err) {
            this.onHostError(err);
          }
        }
        return undefined;
      case 'done': {
        const op = this.ops.get(action.op);
        this.ops.delete(action.op);
        op?.resolve(action);
        return undefined;
      }
      case 'closed': {
        this.closed = true;
        for (const asking of this.asking.values()) asking.abort(new Error('the agent is gone'));
        this.asking.clear();
        this.terminals.killAll();
        if (this.timer) clearTimeout(this.timer);
        // An agent on another machine: its run ended and removed there first.
        if (this.channel) return void this.channel.close().finally(() => this.resolveClosed());
        removeRunFolder(this.runFolder);
        // Closed once the last process's whole tree is gone, not only the process.
        const last = this.lastChild;
        if (last?.treeGone) last.treeGone().then(this.resolveClosed, this.resolveClosed);
        else this.resolveClosed();
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** Tries a connection to the endpoint and tells the engine how it went. */
  probe({ op, host, port }) {
    // An agent on another machine: a connection from here says nothing of there.
    if (this.channel) return void this.feed((e, now) => e.input({ type: 'probed', op, outcome: 'remote' }, now));
    let told = false;
    const tell = (outcome) => {
      if (told) return;
      told = true;
      clearTimeout(timer);
      socket.destroy();
      if (!this.closed) this.feed((e, now) => e.input({ type: 'probed', op, outcome }, now));
    };
    // Every address of the name is tried (`localhost` may be ::1 first
    // while the server listens on 127.0.0.1 only): refused only when all are.
    const socket = net.connect({ host, port, autoSelectFamily: true });
    const timer = setTimeout(() => tell('ETIMEDOUT'), PROBE_MS);
    socket.once('connect', () => tell('connected'));
    socket.once('error', (err) => tell(err.code ?? (err.errors?.length && err.errors.every((e) => e.code === 'ECONNREFUSED') ? 'ECONNREFUSED' : 'EIO')));
    return undefined;
  }

  spawn(action) {
    // An agent on another machine: through its channel (../remote/remote-channel.cjs).
    if (this.channel) return this.channel.spawn(action, this);
    const adds = (vars) => vars && Object.keys(vars).length > 0;
    const env =
      adds(action.defaultEnv) || adds(action.env) || adds(this.launchEnv)
        ? { ...action.defaultEnv, ...this.env, ...action.env, ...this.launchEnv }
        : this.env;
    // The files the process reads, and none of those it writes left from before.
    const outputs = action.outputs ?? [];
    try {
      writeRunFiles(action.files);
      for (const file of outputs) {
        fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        fs.rmSync(file, { force: true });
      }
    } catch (err) {
      this.feed((e, now) => e.input({ type: 'spawnFailed', code: err.code ?? 'EIO' }, now));
      return;
    }
    const cwd = path.resolve(action.cwd);
    const child = spawnAgent(
      { file: action.command, args: action.args, cwd, env, keepStdin: true, watch: action.retryLog ?? undefined },
      {
        onStdout: (chunk) => this.feed((e, now) => e.stdout(chunk, now)),
        onStderr: (chunk) => this.feed((e, now) => e.stderr(chunk, now)),
        // The file the agent tells of its own retries in (Qwen's telemetry);
        // its last read, once the process has ended, changes nothing.
        onWatched: (chunk) => child.ended || this.feed((e, now) => e.retryLog(chunk, now)),
      },
    );
    this.child = child;
    this.lastChild = child;
    const failed = (code) => {
      const rejected = code === 'ENOENT' ? this.cdGone?.(cwd) : undefined;
      this.feed((e, now) => e.input({ type: 'spawnFailed', code, rejected }, now));
    };
    if (child.pid === undefined) {
      this.child = null;
      child.exited.then((end) => failed(end.error?.code ?? 'UNKNOWN'));
      return;
    }
    // A write to a process already gone (EPIPE): what was written never
    // reached it, which the engine is told (a prompt that provably never
    // reached the agent may go to the next process).
    child.stdin.on('error', () => {
      if (this.child === child) this.feed((e, now) => e.input({ type: 'writeFailed' }, now));
    });
    this.engine.input({ type: 'spawned' }, Date.now());
    child.exited
      // A write's failure is reported a loop turn after it: heard before the end.
      .then((end) => new Promise((resolve) => setImmediate(() => setImmediate(() => resolve(end)))))
      .then((end) => {
        if (this.child === child) this.child = null;
        // A failed spawn reported late (ENOENT of the folder, EACCES…).
        if (end.error && end.exitCode === null && end.signal === null) return failed(end.error.code ?? 'UNKNOWN');
        // What it wrote for the reply, handed over before its end, then removed.
        for (const file of outputs) {
          let content;
          try {
            content = fs.readFileSync(file, 'utf8');
          } catch {
            continue; // not written (it failed before it could)
          }
          this.engine.output(file, content);
          fs.rmSync(file, { force: true });
        }
        this.feed((e, now) => e.input({ type: 'exited', code: end.exitCode, signal: end.signal }, now));
      });
  }

  async host(action) {
    // The agent may cancel its request (`$/cancel_request`): this aborts,
    // and whatever the callback answers then goes nowhere.
    const asking = new AbortController();
    const { signal } = asking;
    this.asking.set(action.call, asking);
    // The request as the app's callback gets it: the agent's params, with `signal` (not enumerable).
    const withSignal = (params) => Object.defineProperty({ ...params }, 'signal', { value: signal, enumerable: false });
    let answer;
    try {
      if (action.ask === 'permission') {
        let decision = null;
        if (this.onPermission) {
          try {
            decision = await this.onPermission(withSignal(action.params));
          } catch (err) {
            if (!signal.aborted) this.onHostError(err);
            decision = 'reject';
          }
        }
        answer = permissionAnswer(decision);
      } else if (action.ask === 'elicitation') {
        answer = null; // declined
        try {
          answer = (await this.onElicitation?.(withSignal(action.params))) ?? null;
        } catch (err) {
          if (!signal.aborted) this.onHostError(err);
          answer = { action: 'cancel' };
        }
      } else if (this.channel) {
        // The files of an agent on another machine are there.
        answer = await this.channel.fileMethod(this.engine, action);
      } else {
        const real = realPath(action.path);
        const write = action.ask === 'write';
        if (!this.engine.pathAllowed(real, write, action.call)) answer = { error: 'OUTSIDE' };
        else if (write) {
          await fs.promises.mkdir(path.dirname(real), { recursive: true });
          await fs.promises.writeFile(real, action.content, { signal });
          answer = {};
        } else answer = { content: await fs.promises.readFile(real, { encoding: 'utf8', signal }) };
      }
    } catch (err) {
      answer = { error: err.code || 'EIO' };
    }
    this.asking.delete(action.call);
    // Answered already (the agent cancelled it, or the host is gone): nothing more.
    if (signal.aborted || this.closed) return;
    try {
      this.feed((e, now) => e.hostAnswer(action.call, answer, now));
    } catch (err) {
      this.step();
      this.onHostError(err);
    }
  }

  /** Kills what runs now (the host is going away). */
  kill() {
    if (this.child) this.child.kill();
    this.terminals.killAll();
  }
}

/** What `onPermission` answered, as the engine reads it. */
function permissionAnswer(decision) {
  if (decision === null || decision === undefined) return null;
  if (typeof decision === 'string') {
    return ['allow', 'allow_always', 'reject'].includes(decision) ? { decision } : { optionId: decision };
  }
  if (typeof decision === 'object' && typeof decision.optionId === 'string') return { optionId: decision.optionId };
  if (typeof decision === 'object' && decision.outcome === 'cancelled') return { cancelled: true };
  return { decision: String(decision) };
}

module.exports = { EngineHost, realPath };
