// A writer's host that vanishes — no FIN, no RST, its packets lost, as a
// machine that loses power or its network — frees its conversation within
// ~15 s: the store's lock connection asks the server for TCP keepalives
// (5 s idle, every 5 s, 2 probes), and the server ends the session that
// holds the advisory lock when they go unanswered.
//
// The "other machine" is a network path of its own: the PostgreSQL server
// runs inside a network namespace made here (listening only on that
// namespace's addresses, so nothing of the host listens beyond 127.0.0.1),
// reached from this machine over two veth pairs — one the writer's, one the
// test's. Cutting the writer's path drops its packets both ways inside the
// namespace (iptables DROP), and the writer's process is left running: the
// server can only learn of it through its keepalives. Needs root (ip netns,
// iptables), as the remote-host tests' sshd and dockerd do.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const pkg = require('agent-context');
const { startPostgres } = require('./server.cjs');

const ROOT = path.join(__dirname, '..', '..');
const sh = (...args) => execFileSync(args[0], args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 });

/** A namespace with two veth pairs to this one: `{ netns, writer: { host, server }, test: { host, server }, cut(), remove() }` (addresses). */
function network() {
  const n = process.pid % 10_000;
  const netns = `acpg${n}`;
  const net = `10.${200 + (n % 50)}.${Math.floor(n / 50) % 250}`;
  const pairs = { writer: [`acw${n}`, `acwp${n}`, 0], test: [`act${n}`, `actp${n}`, 4] };
  const ns = (...args) => sh('ip', 'netns', 'exec', netns, ...args);
  sh('ip', 'netns', 'add', netns);
  const addresses = {};
  try {
    ns('ip', 'link', 'set', 'lo', 'up');
    for (const [name, [host, inside, base]] of Object.entries(pairs)) {
      sh('ip', 'link', 'add', host, 'type', 'veth', 'peer', 'name', inside);
      sh('ip', 'link', 'set', inside, 'netns', netns);
      sh('ip', 'addr', 'add', `${net}.${base + 1}/30`, 'dev', host);
      sh('ip', 'link', 'set', host, 'up');
      ns('ip', 'addr', 'add', `${net}.${base + 2}/30`, 'dev', inside);
      ns('ip', 'link', 'set', inside, 'up');
      addresses[name] = { host: `${net}.${base + 1}`, server: `${net}.${base + 2}` };
    }
  } catch (err) {
    remove();
    throw err;
  }
  function remove() {
    // The namespace's ends go with it, and each pair with its end.
    try {
      sh('ip', 'netns', 'del', netns);
    } catch {
      // Not there.
    }
    for (const [host] of Object.values(pairs)) {
      try {
        sh('ip', 'link', 'del', host);
      } catch {
        // Gone with the namespace.
      }
    }
  }
  return {
    netns,
    ...addresses,
    trust: [`${net}.0/29`],
    /** The writer's machine gone: every packet to or from it dropped inside the namespace. */
    cut() {
      ns('iptables', '-I', 'INPUT', '-s', addresses.writer.host, '-j', 'DROP');
      ns('iptables', '-I', 'OUTPUT', '-d', addresses.writer.host, '-j', 'DROP');
    },
    remove,
  };
}

test('a writer whose machine vanishes (its packets dropped, its process still running) frees its conversation within ~15 s', { timeout: 120_000 }, async () => {
  const net = network();
  let server;
  let child;
  const store = { close: async () => {} };
  try {
    server = await startPostgres({ netns: net.netns, listen: [net.writer.server, net.test.server], trust: net.trust });
    const writerUrl = server.urlOf('postgres', net.writer.server);
    const testUrl = server.urlOf('postgres', net.test.server);
    // The writer, in its own process, over its own path.
    const script = `
      const pkg = require('agent-context');
      const store = pkg.openPostgresSessionStore({ connectionString: ${JSON.stringify(writerUrl)} });
      setInterval(() => {}, 1000);
      (async () => {
        const w = await store.open('c', { format: 'agent-context/session-record', version: '2.0', conversationId: 'c', createdAt: 1 });
        await w.append('{"seq":1,"at":1,"kind":"part","agentType":"a","protocol":"acp","reason":"opened","fromTurn":1}\\n{"seq":2,"at":2,"kind":"request","turn":1,"text":"hi"}\\n');
        console.log('held');
      })().catch((err) => { console.error(err); process.exit(3); });`;
    child = spawn(process.execPath, ['-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve, reject) => {
      child.stdout.on('data', (d) => String(d).includes('held') && resolve());
      child.once('exit', (code) => reject(new Error(`the writer exited ${code}`)));
    });
    Object.assign(store, pkg.openPostgresSessionStore({ connectionString: testUrl }));
    const header = { format: 'agent-context/session-record', version: '2.0', conversationId: 'c', createdAt: 1 };
    await assert.rejects(store.open('c', header), (err) => err.code === 'SESSION_LOCKED');
    assert.equal((await store.listConversations())[0].status, 'open');

    net.cut();
    const cutAt = Date.now();
    let writer;
    while (!writer) {
      try {
        writer = await store.open('c', header);
      } catch (err) {
        if (err.code !== 'SESSION_LOCKED') throw err;
        assert.ok(Date.now() - cutAt < 30_000, 'still held 30 s after its machine vanished');
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    const took = Date.now() - cutAt;
    console.log(`# the conversation was free ${took} ms after its writer's machine vanished`);
    // ~15 s: 5 s idle, then 2 probes 5 s apart; not at once (the writer's process is alive).
    assert.ok(took >= 5_000 && took <= 20_000, `${took} ms`);
    assert.equal(child.exitCode, null, 'the writer never knew');
    await writer.append('{"seq":3,"at":3,"kind":"interrupted","turn":1}\n');
    await writer.close();
    assert.deepEqual((await store.read('c')).entries.map((e) => e.kind), ['part', 'request', 'interrupted']);
  } finally {
    child?.kill('SIGKILL');
    await store.close();
    server?.stop();
    net.remove();
  }
});
