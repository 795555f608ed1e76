// The session engine's executor, Node only: the one place that spawns an
// agent, writes to it, kills it, keeps its timer and asks the host's
// callbacks, for every agent and protocol: `__Engine` (the Agent Client
// Protocol, src/engine/) and `__CliEngine` (an agent's own command line,
// src/engine/cli/: sessions, runAgent, the Gemini tool). Every decision is
// the core's; this file carries out its actions (`pollAll()`) and feeds it
// what happened, with the time.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnAgent } = require('./spawn-agent.cjs');
const { removeRunFolder, writeRunFiles } = require('./option-check.cjs');

let EngineClass;
function engineClass() {
  EngineClass ??= require('./agent_context_node.js').__Engine;
  return EngineClass;
}

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
 * `runFolder`: the run's own folder, removed when the engine closes;
 * `warn(message)`: the caller's logger, for what the engine warns of.
 */
class EngineHost {
  constructor(engine, { env, launchEnv, onPermission, onUpdate, onHostError, runFolder, warn }) {
    this.engine = engine;
    this.warn = warn; // the caller's logger, for the engine's warnings
    this.runFolder = runFolder; // removed once the engine closes
    this.env = env;
    this.launchEnv = launchEnv ?? {};
    this.onPermission = onPermission;
    this.onUpdate = onUpdate;
    this.onHostError = onHostError ?? (() => {});
    this.ops = new Map(); // op → { resolve, onEvent }
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
      case 'write':
        if (this.child && !this.child.stdin.destroyed && !this.child.stdin.writableEnded) this.child.stdin.write(action.data);
        return undefined;
      case 'closeStdin':
        if (this.child && !this.child.stdin.writableEnded) this.child.stdin.end();
        return undefined;
      case 'kill':
        if (this.child) this.child.kill();
        return undefined;
      case 'host':
        return this.host(action);
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
      case 'warn':
        this.warn?.(action.message);
        return undefined;
      case 'closed':
        this.closed = true;
        if (this.timer) clearTimeout(this.timer);
        removeRunFolder(this.runFolder);
        this.resolveClosed();
        return undefined;
      default:
        return undefined;
    }
  }

  spawn(action) {
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
      this.feed((e, now) => e.spawnFailed(err.code ?? 'EIO', now));
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
    const failed = (code) => {
      const rejected = code === 'ENOENT' ? this.cdGone?.(cwd) : undefined;
      this.feed((e, now) => e.spawnFailed(code, now, rejected));
    };
    if (child.pid === undefined) {
      this.child = null;
      child.exited.then((end) => failed(end.error?.code ?? 'UNKNOWN'));
      return;
    }
    child.stdin.on('error', () => {});
    this.engine.spawned(Date.now());
    child.exited.then((end) => {
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
      this.feed((e, now) => e.exited(end.exitCode ?? undefined, end.signal ?? undefined, now));
    });
  }

  async host(action) {
    let answer;
    try {
      if (action.ask === 'permission') {
        let decision = null;
        if (this.onPermission) {
          try {
            decision = await this.onPermission(action.params);
          } catch (err) {
            this.onHostError(err);
            decision = 'reject';
          }
        }
        answer = permissionAnswer(decision);
      } else {
        const real = realPath(action.path);
        const write = action.ask === 'write';
        if (!this.engine.pathAllowed(real, write, action.call)) answer = { error: 'OUTSIDE' };
        else if (write) {
          await fs.promises.mkdir(path.dirname(real), { recursive: true });
          await fs.promises.writeFile(real, action.content);
          answer = {};
        } else answer = { content: await fs.promises.readFile(real, 'utf8') };
      }
    } catch (err) {
      answer = { error: err.code || 'EIO' };
    }
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

module.exports = { EngineHost, engineClass, realPath };
