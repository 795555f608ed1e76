// A real Docker Engine (Debian's docker.io) for the remote-host tests: a
// daemon of the test's own (`dockerd --storage-driver=vfs --iptables=false
// --bridge=none`, its data, state and socket in a folder of its own, so it
// meets no other daemon), an image imported from local files (no registry:
// `tar -C dir -c . | docker import - name`), and a container with this
// machine's /usr, /lib*, /bin and /etc mounted read-only (its Node and
// tools) plus the folders the test names, on the host's network (the mock
// APIs on 127.0.0.1). Everything is stopped and removed by `stop()`.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const DOCKERD = ['/usr/sbin/dockerd', '/usr/bin/dockerd'].find((f) => fs.existsSync(f));
const START_MS = 60_000;
const IMAGE = 'agent-context-remote-test';

/** Whether the test's Docker Engine can run here: as root; a missing dockerd fails the tests (scripts/setup.sh --remote installs Debian's docker.io). */
function available() {
  return process.getuid?.() === 0;
}

/**
 * Starts the daemon in a new folder under /tmp (short: the socket paths
 * under it have a length limit); resolves `{ host, docker(args), start(name,
 * mounts), stop() }`. `host` is the DOCKER_HOST the docker CLI needs.
 */
async function startDockerd() {
  if (!DOCKERD) throw new Error("no dockerd here: scripts/setup.sh --remote installs Debian's docker.io");
  const dir = fs.mkdtempSync('/tmp/acd-');
  const socket = path.join(dir, 'docker.sock');
  const host = `unix://${socket}`;
  const log = fs.openSync(path.join(dir, 'dockerd.log'), 'a');
  const child = spawn(
    DOCKERD,
    ['--storage-driver=vfs', '--iptables=false', '--bridge=none', '--data-root', path.join(dir, 'data'), '--exec-root', path.join(dir, 'x'), '--pidfile', path.join(dir, 'dockerd.pid'), '-H', host],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  const docker = (args, options = {}) => execFileSync('docker', ['-H', host, ...args], { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'], ...options });
  const until = Date.now() + START_MS;
  for (;;) {
    try {
      docker(['info'], { stdio: 'ignore' });
      break;
    } catch {
      if (child.exitCode !== null || Date.now() > until) {
        throw new Error(`dockerd did not start: ${fs.readFileSync(path.join(dir, 'dockerd.log'), 'utf8').slice(-2000)}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const root = path.join(dir, 'image');
  for (const d of ['tmp', 'root', 'proc', 'sys', 'dev']) fs.mkdirSync(path.join(root, d), { recursive: true });
  fs.chmodSync(path.join(root, 'tmp'), 0o1777);
  execFileSync('sh', ['-c', 'tar -C "$1" -c . | docker -H "$2" import - "$3" >/dev/null', 'sh', root, host, IMAGE]);
  const containers = [];
  return {
    host,
    docker,
    /** Starts container `name` (it sleeps) with `mounts` (folders mounted at their own path, read-write). */
    start(name, mounts = []) {
      const system = ['/usr', '/lib', '/lib64', '/bin', '/etc'].filter((d) => fs.existsSync(d)).flatMap((d) => ['-v', `${d}:${d}:ro`]);
      const own = mounts.flatMap((d) => ['-v', `${d}:${d}`]);
      docker(['run', '-d', '--name', name, '--network', 'host', ...system, ...own, IMAGE, '/bin/sleep', '3600']);
      containers.push(name);
    },
    /** The processes running in container `name` (`docker top`), without its own `sleep`. */
    top(name) {
      return docker(['top', name, '-o', 'pid,args'])
        .split('\n')
        .slice(1)
        .filter((l) => l.trim() !== '' && !/\/bin\/sleep 3600\s*$/.test(l));
    },
    stop() {
      for (const name of containers) {
        try {
          docker(['rm', '-f', name], { stdio: 'ignore' });
        } catch {
          // gone already
        }
      }
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
      return new Promise((resolve) => {
        const done = () => {
          try {
            execFileSync('umount', [path.join(dir, 'x', 'netns', 'default')], { stdio: 'ignore' });
          } catch {
            // not mounted
          }
          fs.rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return done();
        const timer = setTimeout(() => {
          try {
            process.kill(child.pid, 'SIGKILL');
          } catch {}
        }, 15_000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
      });
    },
  };
}

module.exports = { startDockerd, available };
