// An ACP agent that speaks on its stdio, served over the network, Node only:
// an AgentConnector of the ACP SDK (what its server asks for each accepted
// connection) that starts the agent's process for each connection and
// moves its JSON-RPC messages with the SDK's own newline-delimited JSON
// stream. The process (its whole tree, in a process group of its own) ends
// with the connection: its stdin is closed, and whatever still runs after
// a short grace is killed. What the agent prints on stderr is dropped: it
// may hold the server's environment.
'use strict';

const { spawnAgent } = require('../host/spawn-agent.cjs');
const { importPackage } = require('../host/import-package.cjs');

/** After the connection ends: how long the agent may take to exit before its tree is killed. */
const EXIT_GRACE_MS = 2_000;

let sdk;
function loadSdk() {
  const name = '@agentclientprotocol/sdk';
  sdk ??= importPackage(name);
  return sdk;
}

/**
 * The connector for the agent `{ command, args?, env?, cwd }` (`command`: a
 * path, or a name on the PATH; `env`: its whole environment, the server's
 * when not given; `cwd`: where it starts).
 */
function stdioAgent({ command, args = [], env, cwd }) {
  return {
    connect(stream) {
      let fromChild;
      const out = new ReadableStream({
        start: (controller) => {
          fromChild = controller;
        },
      });
      const child = spawnAgent(
        { file: command, args, cwd, env, keepStdin: true },
        {
          onStdout: (chunk) => {
            try {
              fromChild.enqueue(new Uint8Array(chunk));
            } catch {
              // the connection is gone
            }
          },
        },
      );
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        if (child.pid === undefined) return;
        child.stdin.end();
        const timer = setTimeout(() => child.kill(), EXIT_GRACE_MS);
        child.exited.then(() => clearTimeout(timer));
      };
      child.exited.then(() => {
        try {
          fromChild.close();
        } catch {
          // already closed
        }
      });
      const toChild = new WritableStream({
        write: (chunk) =>
          new Promise((resolve) => {
            if (child.pid === undefined || child.ended) return resolve();
            child.stdin.write(chunk, () => resolve());
          }),
        close: end,
        abort: end,
      });
      loadSdk().then(({ ndJsonStream }) => {
        const lines = ndJsonStream(toChild, out);
        stream.readable.pipeTo(lines.writable).catch(() => {}).finally(end);
        lines.readable.pipeTo(stream.writable).catch(() => {});
      }, end);
      const closed = child.exited.then(() => child.treeGone?.());
      return { closed };
    },
  };
}

module.exports = { stdioAgent };
