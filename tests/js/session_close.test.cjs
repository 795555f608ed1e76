// A session's close() on stub agents (node scripts playing an agent: a
// stub is only for testing our own process layer): what the agent started
// in a session of its own (setsid, out of reach of its process group's
// signal) is gone within 3 s of close() — over ACP whether the agent exits
// when its stdin ends or is killed after the grace, and over Claude Code's
// command line (one process for the session). Linux: processes are found
// through /proc.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-session-close-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));
const skip = process.platform !== 'linux' && 'processes are found through /proc';

/** PIDs of live processes (not zombies) whose command line mentions `needle`. */
function running(needle) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/stat`, 'latin1').replace(/^.*\) /, '')[0] === 'Z') continue;
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Waits up to `ms` for no process mentioning `needle`; resolves how long it took, or null. */
async function goneWithin(needle, ms) {
  const started = Date.now();
  while (Date.now() - started <= ms) {
    if (running(needle).length === 0) return Date.now() - started;
    await new Promise((r) => setTimeout(r, 50));
  }
  return null;
}

/** Node code that starts a process in a session of its own (`detached`: setsid), marked `name`. */
const startStray = (name) => `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(name)}], { stdio: 'ignore', detached: true }).unref();`;

/**
 * A stub ACP agent that starts a stray at once, answers `initialize`,
 * `session/new` and prompts; when its stdin ends it exits (`exitsOnEof`)
 * or runs on, as Claude's and Codex's adapters do.
 */
function acpStub(name, stray, exitsOnEof) {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `#!${process.execPath}
${startStray(stray)}
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let at;
  while ((at = buf.indexOf('\\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, at));
    buf = buf.slice(at + 1);
    if (msg.method === 'initialize') send({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
    else if (msg.method === 'session/new') send({ jsonrpc: '2.0', id: msg.id, result: { sessionId: 'stub-1' } });
    else if (msg.method === 'session/prompt') {
      send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'stub-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'Hello' } } } });
      send({ jsonrpc: '2.0', id: msg.id, result: { stopReason: 'end_turn' } });
    } else if (msg.id !== undefined) send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
  }
});
process.stdin.on('end', () => { ${exitsOnEof ? 'process.exit(0);' : 'setInterval(() => {}, 1000);'} });
`,
  );
  fs.chmodSync(file, 0o755);
  return file;
}

/** A stub of Claude Code's streaming mode: one `result` line a `user` line; it exits when stdin ends. */
function claudeStub(name, stray) {
  const file = path.join(dir, name);
  const sid = '0b7f5f5e-1111-4222-8333-944445555666';
  fs.writeFileSync(
    file,
    `#!${process.execPath}
${startStray(stray)}
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
send({ type: 'system', subtype: 'init', session_id: '${sid}' });
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let at;
  while ((at = buf.indexOf('\\n')) >= 0) {
    const msg = JSON.parse(buf.slice(0, at));
    buf = buf.slice(at + 1);
    if (msg.type !== 'user') continue;
    send({ type: 'assistant', message: { content: [{ type: 'text', text: 'Hello' }] }, session_id: '${sid}' });
    send({ type: 'result', subtype: 'success', is_error: false, result: 'Hello', session_id: '${sid}' });
  }
});
process.stdin.on('end', () => process.exit(0));
`,
  );
  fs.chmodSync(file, 0o755);
  return file;
}

const cases = [
  { what: 'an ACP agent that runs on after its stdin ends (killed after the grace)', protocol: 'acp', exitsOnEof: false },
  { what: 'an ACP agent that exits when its stdin ends', protocol: 'acp', exitsOnEof: true },
  { what: "Claude Code's one process over its command line", protocol: 'cli' },
];

for (const [i, c] of cases.entries()) {
  test(`close() of a session: what ${c.what} started with setsid is gone within 3 s`, { skip }, async () => {
    const stray = `stray-of-session-close-${i}-${process.pid}`;
    const agent =
      c.protocol === 'acp'
        ? { id: `stub-acp-${i}`, name: 'Stub', command: acpStub(`acp-${i}.cjs`, stray, c.exitsOnEof), protocol: 'acp' }
        : 'claude-code';
    const options = c.protocol === 'acp' ? { cd: dir } : { cd: dir, protocol: 'cli', command: claudeStub(`claude-${i}.cjs`, stray) };
    const session = await pkg.openAgentSession(agent, options);
    try {
      const turn = await session.prompt('Hello?');
      assert.equal(turn.success, true, JSON.stringify(turn.error));
      assert.equal(turn.reply.text, 'Hello');
      assert.ok(running(stray).length > 0, 'the stray runs while the session is open');
    } finally {
      await session.close();
    }
    const took = await goneWithin(stray, 3_000);
    assert.notEqual(took, null, `still running 3 s after close(): ${running(stray).join(', ')}`);
  });
}
