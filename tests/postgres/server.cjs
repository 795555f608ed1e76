// A PostgreSQL server of the tests' own: Debian's postgresql (scripts/setup.sh
// --postgres installs it), a cluster made by initdb in a temporary folder
// (as the `postgres` user when the tests run as root: the server refuses
// root), listening on 127.0.0.1 only, on a port of its own, its socket in
// that folder (or inside a network namespace of the test's, also on that
// namespace's own addresses: ./crashed-host.test.cjs). `startPostgres()` resolves `{ url, port, dir, psql, stop }`;
// `stop()` stops the server by its data folder and removes the folder.
'use strict';
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

/** The newest Debian PostgreSQL's bin folder (/usr/lib/postgresql/<major>/bin). */
function binDir() {
  const root = '/usr/lib/postgresql';
  const majors = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v) && fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  if (majors.length === 0) throw new Error("Debian's postgresql is not installed (bash scripts/setup.sh --postgres installs it)");
  return path.join(root, String(Math.max(...majors.map(Number))), 'bin');
}

/** A port nobody listens on now, on 127.0.0.1. */
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

/** Runs a server binary as the user that owns the cluster (inside network namespace `netns`, when given). */
function runAs(user, bin, args, netns) {
  let command = user ? ['runuser', '-u', user, '--', bin, ...args] : [bin, ...args];
  if (netns) command = ['ip', 'netns', 'exec', netns, ...command];
  return execFileSync(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
}

/**
 * `options.netns`: start the server inside that network namespace (made by
 * the caller), listening on its 127.0.0.1 and on `options.listen` (its own
 * addresses), taking clients of `options.trust` (CIDRs) without a password.
 */
async function startPostgres(options = {}) {
  const { netns, listen = [], trust = [] } = options;
  const bin = binDir();
  const user = process.getuid?.() === 0 ? 'postgres' : null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ac-postgres-'));
  const data = path.join(dir, 'data');
  if (user) execFileSync('chown', [user, dir]);
  let started = false;
  const stop = () => {
    if (started) {
      try {
        runAs(user, path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], netns);
      } catch {
        // Stopped already.
      }
      started = false;
    }
    fs.rmSync(dir, { recursive: true, force: true });
    process.off('exit', stop);
  };
  // A run that ends without its after() hook (a test runner cancelled, an
  // uncaught error) stops the server all the same.
  process.on('exit', stop);
  try {
    runAs(user, path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-locale', '--no-sync']);
    if (trust.length > 0) fs.appendFileSync(path.join(data, 'pg_hba.conf'), trust.map((cidr) => `host all all ${cidr} trust\n`).join(''));
    // A port taken between freePort() and the start: another one, a few times.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const settings = `-p ${port} -k ${dir} -c listen_addresses=${['127.0.0.1', ...listen].join(',')} -c fsync=off -c max_connections=60`;
      try {
        started = true;
        runAs(user, path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-o', settings, '-w', '-t', '60', 'start'], netns);
      } catch (err) {
        started = false;
        if (attempt >= 3) throw new Error(`postgres did not start: ${err.stderr ?? err.message}\n${fs.readFileSync(path.join(dir, 'log'), 'utf8')}`);
        continue;
      }
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      /** Runs SQL through psql on the socket; its output (unaligned, tuples only). */
      const psql = (sql, db = 'postgres') => execFileSync(path.join(bin, 'psql'), ['-h', dir, '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-X', '-A', '-t', '-c', sql], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
      const pgCtl = (...args) => runAs(user, path.join(bin, 'pg_ctl'), ['-D', data, ...args], netns);
      /** Stops the server (its clients' connections ended, as an administrator's restart does), waits `downMs`, starts it again on the same port. */
      const restart = async (downMs) => {
        pgCtl('-m', 'fast', '-w', 'stop');
        await new Promise((resolve) => setTimeout(resolve, downMs));
        pgCtl('-l', path.join(dir, 'log'), '-o', settings, '-w', '-t', '60', 'start');
      };
      return { url, port, dir, psql, stop, restart, urlOf: (db, host = '127.0.0.1') => `postgres://postgres@${host}:${port}/${db}` };
    }
  } catch (err) {
    stop();
    throw err;
  }
}

/**
 * The server of one test file: started before its tests, stopped after
 * them, with a work folder of its own (`ac-pg-<label>-…`, removed with it):
 * `{ server, work, database() }`; `database()` makes a database of a
 * test's own (from template0, UTF8): `{ name, url, sql(query) }`.
 */
function postgresForTests(label) {
  const { before, after } = require('node:test');
  let databases = 0;
  const pg = {
    server: null,
    work: null,
    database() {
      const name = `t${++databases}`;
      pg.server.psql(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
      return { name, url: pg.server.urlOf(name), sql: (q) => pg.server.psql(q, name) };
    },
  };
  before(async () => {
    pg.server = await startPostgres();
    pg.work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `ac-pg-${label}-`)));
  });
  after(() => {
    pg.server?.stop();
    if (pg.work) fs.rmSync(pg.work, { recursive: true, force: true });
  });
  return pg;
}

module.exports = { startPostgres, postgresForTests };
