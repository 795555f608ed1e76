// An agent on another machine, Node only: the host side of a channel the
// user already has (OpenSSH, `docker exec`, `kubectl exec`, or the host
// application's own `exec(argv, env)` function). Every decision is the
// core's (`__RemoteRun`, src/remote/): what to start for each operation,
// what goes on its stdin, what its answer means. This file starts those
// local processes (../host/spawn-agent.cjs), moves their bytes, and hands the
// session engine (../host/engine-host.cjs) what happened, as it does for an agent
// run here. What those local processes leave running outside their group
// is kept (`keepStrays`): the shared SSH connection, which close() ends.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { spawnAgent, onHostEnd } = require('../host/spawn-agent.cjs');
const { runFolderName, removeRunFolder } = require('../host/option-check.cjs');

let RemoteRunClass;
function remoteClass() {
  RemoteRunClass ??= require('../core/agent_context_node.cjs').__RemoteRun;
  return RemoteRunClass;
}

/** An operation that has not answered in this time is ended. */
const OP_TIMEOUT_MS = 30_000;
/** After asking the other side to end a process: the channel's own end. */
const KILL_GRACE_MS = 5_000;
/** The reap after a process: a side that does not answer in this time is lost (the turn waits for it). */
const REAP_TIMEOUT_MS = 10_000;
/** An operation at the host's exit (synchronous). */
const AT_EXIT_TIMEOUT_MS = 5_000;
/** What is kept of an operation's stderr, for messages. */
const STDERR_KEEP = 4096;
/** After `ssh -O exit` answered: the shared connection's process gets this long to be gone. */
const SHARED_EXIT_MS = 5_000;
/** How often its control socket is looked for meanwhile. */
const SHARED_POLL_MS = 10;

const isExecHost = (host) => host !== null && typeof host === 'object' && !Array.isArray(host) && typeof host.exec === 'function';

class RemoteChannel {
  /**
   * `host`: `options.host`; `env`: the caller's own `options.env` (added to
   * the other side's environment), or undefined. A wrong field throws
   * AgentContextError (INVALID_INPUT).
   */
  constructor(host, env) {
    this.execFn = isExecHost(host) ? host.exec : null;
    const given = this.execFn ? { ...host, exec: { function: true } } : host;
    // A folder of the run's own here: the shared SSH connection's socket.
    // Named as the run folders are (a host killed outright has it swept by
    // the next), but removed by this channel alone, after its last
    // operation: at the host's end the folders' own cleanup runs first.
    this.localFolder = runFolderName();
    removeRunFolder(this.localFolder);
    try {
      // The run's folder there is named apart from this one (the two are one folder over SSH to this same machine).
      // The shared SSH connection's control socket (OpenSSH's ControlPath).
      this.controlPath = path.join(this.localFolder, 'ssh');
      this.core = new (remoteClass())(given, this.controlPath, env ?? null, `remote-${path.basename(this.localFolder)}`);
    } catch (err) {
      removeRunFolder(this.localFolder);
      throw err;
    }
    fs.mkdirSync(this.localFolder, { recursive: true, mode: 0o700 });
    this.live = new Set(); // processes of the agent: { id, child, killed, watcher }
    this.closed = false; // close() began
    this.finished = false; // nothing of the run is left, here or there
    this.unhook = onHostEnd(() => this.endSync());
  }

  get name() {
    return this.core.name;
  }

  get runFolder() {
    return this.core.runFolder;
  }

  /** The local command of `local` (`{ via: 'spawn' | 'exec', … }`): `{ file, args }`; throws why not. */
  launchOf(local) {
    if (local.via === 'spawn') return { file: local.command, args: local.args };
    const answer = this.execFn(local.argv.slice(), { ...process.env });
    const checked = remoteClass().execAnswer(answer);
    return { file: checked.command, args: checked.args };
  }

  /**
   * Runs operation `op` (`{ local, stdin }`); resolves `{ stdout, stderr,
   * exitCode, signal, error }` once its local process ended, never rejects.
   */
  run(op, timeoutMs = OP_TIMEOUT_MS) {
    return new Promise((resolve) => {
      let launch;
      try {
        launch = this.launchOf(op.local);
      } catch (error) {
        resolve({ stdout: Buffer.alloc(0), stderr: String(error?.message ?? error), exitCode: null, signal: null, error });
        return;
      }
      const out = [];
      let err = '';
      const child = spawnAgent(
        { file: launch.file, args: launch.args, env: process.env, stdin: op.stdin, keepStrays: true },
        {
          onStdout: (chunk) => out.push(chunk),
          onStderr: (chunk) => {
            err = (err + chunk.toString('utf8')).slice(-STDERR_KEEP);
          },
        },
      );
      const timer = setTimeout(() => child.kill(), timeoutMs);
      child.exited.then((end) => {
        clearTimeout(timer);
        resolve({ stdout: Buffer.concat(out), stderr: err || (end.error?.message ?? ''), exitCode: end.exitCode, signal: end.signal, error: null });
      });
    });
  }

  /** The same, synchronously (the host is exiting). */
  runSync(op) {
    try {
      const launch = this.launchOf(op.local);
      spawnSync(launch.file, launch.args, { input: op.stdin, env: process.env, timeout: AT_EXIT_TIMEOUT_MS, stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      // nothing more can be done at exit
    }
  }

  /**
   * The first operation: the other side's home and `cd` there. Resolves
   * `{ ok: { runFolder, cd, env } }` or `{ problem: { kind, message } }`
   * (`kind`: 'unreachable', 'cd', or 'invalid' for the exec function's answer).
   */
  async probe(cd) {
    const answer = await this.run(this.core.command({ type: 'probe', cd: typeof cd === 'string' && cd !== '' ? cd : undefined }));
    if (answer.error) {
      const invalid = answer.error?.name === 'AgentContextError';
      return { problem: { kind: invalid ? 'invalid' : 'unreachable', message: answer.stderr } };
    }
    return this.core.probed(answer.stdout, answer.stderr);
  }

  /** Files the run writes before its processes start. */
  stageFiles(files) {
    this.core.stageFiles(files ?? []);
  }

  /** Bytes of a file the run writes there before its processes start (an image given as data). */
  stageBytes(file, bytes) {
    this.core.stageBytes(file, bytes);
  }

  /** The run's home as its plan says (`env`: the probe's), the user's folder there listed. */
  async stageHome(home, env) {
    const list = this.core.listHome(home, env);
    if (!list) return this.core.stageHome(home, undefined, undefined);
    const answer = await this.run(list.op);
    const whole = remoteClass().finished(answer.stdout);
    return this.core.stageHome(home, list.user, whole ? answer.stdout : undefined);
  }

  /**
   * Carries out the engine's `spawn` action through the channel for
   * `host` (an EngineHost): the agent's stdin follows the preamble; its
   * stdout and stderr, the file it tells of its retries in, how it ended
   * and what it wrote for the reply are handed to the engine.
   */
  spawn(action, host) {
    let spawned;
    let launch;
    try {
      spawned = this.core.spawn(action);
      launch = this.launchOf(spawned.op.local);
    } catch (err) {
      host.feed((e, now) => e.input({ type: 'cannotLaunch', spawnFailed: true, message: String(err?.message ?? err) }, now));
      return;
    }
    const outputs = action.outputs ?? [];
    const child = spawnAgent(
      { file: launch.file, args: launch.args, env: process.env, keepStdin: true, keepStrays: true },
      {
        onStdout: (chunk) => host.feed((e, now) => e.stdout(chunk, now)),
        onStderr: (chunk) => host.feed((e, now) => e.stderr(chunk, now)),
      },
    );
    if (child.pid === undefined) {
      child.exited.then((end) => host.feed((e, now) => e.input({ type: 'spawnFailed', code: end.error?.code ?? 'UNKNOWN' }, now)));
      return;
    }
    const proc = { id: spawned.id, child, killed: false, watcher: null };
    this.live.add(proc);
    const handle = {
      pid: child.pid,
      stdin: child.stdin,
      kill: () => this.killProcess(proc),
      get ended() {
        return child.ended;
      },
    };
    // A write to a channel already gone (EPIPE): what was written never
    // reached the other side, which the engine is told, as for a process here.
    child.stdin.on('error', () => {
      if (host.child === handle) host.feed((e, now) => e.input({ type: 'writeFailed' }, now));
    });
    child.stdin.write(spawned.op.stdin);
    host.child = handle;
    host.engine.input({ type: 'spawned' }, Date.now());
    if (action.retryLog) proc.watcher = this.watch(proc, action.retryLog, host);
    child.exited.then(async (end) => {
      proc.watcher?.kill();
      if (end.error && end.exitCode === null && end.signal === null) {
        this.live.delete(proc);
        if (host.child === handle) host.child = null;
        host.feed((e, now) => e.input({ type: 'spawnFailed', code: end.error.code ?? 'UNKNOWN' }, now));
        return;
      }
      // Its process group swept there, how it ended, what it wrote for the reply.
      const reap = await this.run(this.core.command({ type: 'reap', id: proc.id, outputs }), REAP_TIMEOUT_MS);
      const whole = remoteClass().finished(reap.stdout);
      const result = this.core.reaped(end.exitCode ?? undefined, end.signal ?? undefined, proc.killed, whole ? reap.stdout : undefined, outputs);
      this.live.delete(proc);
      if (host.child === handle) host.child = null;
      for (const [file, content] of result.outputs) host.engine.output(file, content);
      if (result.transportLost) host.feed((e, now) => e.stderr(Buffer.from(`${result.transportLost}\n`), now));
      host.feed((e, now) => e.input({ type: 'exited', code: result.exitCode, signal: result.signal }, now));
    });
  }

  /** Reads the file the agent tells of its retries in, as it grows there. */
  watch(proc, log, host) {
    let launch;
    try {
      launch = this.launchOf(this.core.watch(proc.id, log).local);
    } catch {
      return null;
    }
    return spawnAgent(
      { file: launch.file, args: launch.args, env: process.env, stdin: null, keepStrays: true },
      { onStdout: (chunk) => proc.child.ended || host.feed((e, now) => e.retryLog(chunk, now)) },
    );
  }

  /** Ends a process of the agent: its process group there, through a new connection; then the channel's own process. */
  killProcess(proc) {
    if (proc.killed || proc.child.ended) return;
    proc.killed = true;
    this.run(this.core.command({ type: 'kill', id: proc.id, signal: 'KILL' }), KILL_GRACE_MS).then(() => {
      if (proc.child.ended) return;
      const timer = setTimeout(() => proc.child.ended || proc.child.kill(), KILL_GRACE_MS);
      proc.child.exited.then(() => clearTimeout(timer));
    });
  }

  /**
   * The client's file system methods there (`action`: the engine's `host`
   * action, `read` or `write`): the real path checked by the engine, then
   * the file read or written. Resolves the engine's answer.
   */
  async fileMethod(engine, action) {
    const resolved = await this.run(this.core.command({ type: 'resolve', path: action.path }));
    let real;
    try {
      real = this.core.resolved(resolved.stdout);
    } catch {
      return { error: 'EIO' };
    }
    const write = action.ask === 'write';
    if (!engine.pathAllowed(real, write, action.call)) return { error: 'OUTSIDE' };
    if (write) {
      const put = await this.run(this.core.command({ type: 'put', path: real, content: action.content }));
      return remoteClass().finished(put.stdout) ? {} : { error: 'EIO' };
    }
    const got = await this.run(this.core.command({ type: 'get', path: real }));
    return this.core.got(got.stdout);
  }

  /**
   * An image file there, as the core reads an attachment: `{ _data }`
   * (base64), `{ _size }` when over `max` bytes, or `{ _error }`.
   */
  async readImage(file, max) {
    const answer = await this.run(this.core.command({ type: 'get', path: file }));
    const got = this.core.gotBytes(answer.stdout, max);
    if (got.bytes) return { _data: Buffer.from(got.bytes).toString('base64') };
    if (got.size !== undefined) return { _size: got.size };
    return { _error: `${file} on ${this.name}: ${got.error}` };
  }

  /**
   * Everything of the run ended and removed there, the shared connection
   * ended and its process gone, the local folder removed.
   */
  async close() {
    if (this.closed) return;
    this.closed = true;
    for (const proc of this.live) proc.child.kill();
    const clean = this.core.command({ type: 'clean' });
    if (clean) await this.run(clean);
    const shared = this.core.command({ type: 'endShared' });
    if (shared) {
      // `ssh -O exit` answers before the connection's process has gone:
      // OpenSSH removes the control socket as that process ends, the last
      // thing it does. (No socket here: none was made, or the caller's own
      // ControlPath won over ours, and the connection is not ours to wait for.)
      const made = fs.existsSync(this.controlPath);
      await this.run({ local: shared, stdin: '' }, KILL_GRACE_MS);
      if (made) await gone(this.controlPath, SHARED_EXIT_MS);
    }
    this.finish();
  }

  /** The same at the host's exit, synchronously (also when close() was under way). */
  endSync() {
    if (this.finished) return;
    this.closed = true;
    const clean = this.core.command({ type: 'clean' });
    if (clean) this.runSync(clean);
    const shared = this.core.command({ type: 'endShared' });
    if (shared) this.runSync({ local: shared, stdin: '' });
    this.finish();
  }

  finish() {
    if (this.finished) return;
    this.finished = true;
    removeRunFolder(this.localFolder);
    this.unhook();
    this.core.free();
  }
}

/** Resolves once `file` does not exist, or after `ms`. */
async function gone(file, ms) {
  const until = Date.now() + ms;
  while (fs.existsSync(file) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, SHARED_POLL_MS));
}

module.exports = { RemoteChannel, isExecHost };
