// Client terminals, Node only: the processes an agent runs through
// `terminal/create` when the app enables `terminals: true`. The engine
// decides everything (src/acp/terminals.rs: the command, its folder inside
// `cd`, the output kept, the answers); this file starts what it says in its
// own process group (./spawn-agent.cjs, killed with the host too), hands
// the output and the end back, and kills a tree when told.
'use strict';

const { spawnAgent } = require('./spawn-agent.cjs');

class TerminalHost {
  /**
   * `engineHost`: the EngineHost whose engine owns the terminals (its
   * `feed`, its `env`); `realPath(dir)`: the folder with links resolved.
   */
  constructor(engineHost, realPath) {
    this.host = engineHost;
    this.realPath = realPath;
    this.running = new Map(); // terminal id → its spawnAgent handle
  }

  /** Carries out a `{ kind: 'terminal', start | kill }` action. */
  act(action) {
    if (action.start) return this.start(action.start);
    if (action.kill !== undefined) return this.kill(action.kill);
    return undefined;
  }

  start({ id, file, args, env, cwd }) {
    const feed = (f) => this.host.feed(f);
    // The folder with its links resolved must still be inside `cd`.
    if (!this.host.engine.terminalCwdAllowed(id, this.realPath(cwd))) {
      return feed((e, now) => e.input({ type: 'terminalFailed', id, code: 'OUTSIDE' }, now));
    }
    const child = spawnAgent(
      { file, args, cwd, env: { ...this.host.env, ...env } },
      {
        onStdout: (chunk) => feed((e, now) => e.terminalOutput(id, chunk, now)),
        onStderr: (chunk) => feed((e, now) => e.terminalOutput(id, chunk, now)),
      },
    );
    if (child.pid === undefined) {
      child.exited.then((end) => feed((e, now) => e.input({ type: 'terminalFailed', id, code: end.error?.code ?? 'UNKNOWN' }, now)));
      return undefined;
    }
    this.running.set(id, child);
    child.exited.then((end) => {
      this.running.delete(id);
      if (this.host.closed) return;
      if (end.error && end.exitCode === null && end.signal === null) {
        return feed((e, now) => e.input({ type: 'terminalFailed', id, code: end.error.code ?? 'UNKNOWN' }, now));
      }
      return feed((e, now) => e.input({ type: 'terminalExited', id, code: end.exitCode, signal: end.signal }, now));
    });
    return feed((e, now) => e.input({ type: 'terminalStarted', id }, now));
  }

  kill(id) {
    this.running.get(id)?.kill();
  }

  /** Every terminal's tree (the engine closed, or the host goes away). */
  killAll() {
    for (const child of this.running.values()) child.kill();
  }

  /** Resolves once every terminal's process has ended. */
  settled() {
    return Promise.all([...this.running.values()].map((c) => c.exited));
  }
}

module.exports = { TerminalHost };
