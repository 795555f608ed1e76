// What the tests of agents served elsewhere share: the ACP SDK's own server
// (./sdk_acp_server.mjs) started in a process group of its own in front of
// a stdio agent, stopped (or killed, as a crash) by that group, and started
// again on the same port.
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const readline = require('node:readline');

const SERVER = path.join(__dirname, 'sdk_acp_server.mjs');
const START_MS = 15_000;

/**
 * Starts the SDK's server in front of `agent` (`[command, ...args]`) with
 * `env`, on `port` (0: any free port). Resolves `{ port, url(scheme),
 * kill(), stop() }`; `kill()` ends its whole process group (the server and
 * the agents it started) with SIGKILL, as a crash.
 */
function startSdkServer(agent, env, port = 0) {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...env, ACP_SERVER_AGENT: JSON.stringify(agent), ACP_SERVER_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const kill = () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      kill();
      reject(new Error(`the SDK's server did not start within ${START_MS} ms`));
    }, START_MS);
    const early = (code) => {
      clearTimeout(timer);
      reject(new Error(`the SDK's server exited with ${code} before listening`));
    };
    child.once('exit', early);
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      child.off('exit', early);
      const { port: got } = JSON.parse(line);
      resolve({
        port: got,
        pid: child.pid,
        url: (scheme = 'http') => `${scheme}://127.0.0.1:${got}/`,
        kill: async () => {
          kill();
          await exited;
        },
      });
    });
  });
}

module.exports = { startSdkServer };
