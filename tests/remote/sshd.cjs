// A real OpenSSH server (Debian's openssh-server) on 127.0.0.1 for the
// remote-host tests: its own host key, a client key the test makes, its own
// configuration (no PAM, keys only, root by key), run in the foreground
// with its log on stderr (each accepted connection is a line, counted by
// `connections()`), stopped by PID. The client side: `host` options for
// runAgent/openAgentSession that trust only this server's key.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const SSHD = ['/usr/sbin/sshd', '/usr/bin/sshd'].find((f) => fs.existsSync(f));
const START_MS = 15_000;

/** Whether the test's sshd can run here: as root (it logs in as root); a missing sshd fails the tests (scripts/setup.sh --remote installs it). */
function available() {
  return process.getuid?.() === 0;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts sshd in `dir` (made): resolves `{ port, host(extra), connections(),
 * log(), stop() }`. `host(extra)` is an `options.host` for this server.
 */
async function startSshd(dir) {
  if (!SSHD) throw new Error("no sshd here: scripts/setup.sh --remote installs Debian's openssh-server");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const hostKey = path.join(dir, 'host_ed25519');
  const clientKey = path.join(dir, 'client_ed25519');
  for (const key of [hostKey, clientKey]) {
    fs.rmSync(key, { force: true });
    fs.rmSync(`${key}.pub`, { force: true });
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'agent-context-test', '-f', key]);
  }
  const authorized = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorized, fs.readFileSync(`${clientKey}.pub`), { mode: 0o600 });
  const port = await freePort();
  const knownHosts = path.join(dir, 'known_hosts');
  fs.writeFileSync(knownHosts, `[127.0.0.1]:${port} ${fs.readFileSync(`${hostKey}.pub`, 'utf8')}`);
  const config = path.join(dir, 'sshd_config');
  fs.writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${authorized}`,
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'StrictModes no',
      'PidFile none',
      'MaxSessions 50',
      'MaxStartups 50',
      'LogLevel INFO',
      '',
    ].join('\n'),
  );
  const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => {
    log += chunk.toString('utf8');
  });
  const listening = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not listen within ${START_MS} ms:\n${log}`)), START_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`sshd exited with ${code}:\n${log}`));
    });
    const poll = () => {
      if (/Server listening on 127\.0\.0\.1 port/.test(log)) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve();
      } else setTimeout(poll, 50);
    };
    poll();
  });
  await listening;
  return {
    port,
    clientKey,
    knownHosts,
    /** `options.host` for this server (`extra` joins the ssh settings). */
    host(extra = {}) {
      return {
        ssh: {
          host: '127.0.0.1',
          user: os.userInfo().username,
          port,
          identityFile: clientKey,
          options: [`UserKnownHostsFile=${knownHosts}`, 'StrictHostKeyChecking=yes', 'GlobalKnownHostsFile=/dev/null'],
          ...extra,
        },
      };
    },
    /** SSH connections accepted so far. */
    connections: () => (log.match(/Accepted publickey for /g) ?? []).length,
    log: () => log,
    stop() {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    },
  };
}

module.exports = { startSshd, available };
