// A prompt written as the agent's process exits, between turns, against the
// official SDK's agent side (tests/acp/conformance/sdk_agent.mjs, which
// resumes the sessions it keeps in a file): Node destroys a child's
// stdin at its exit, and the host hears of the exit only once its output
// is closed, a loop turn or two later. A prompt written in between never
// reaches the agent: it goes to the agent started anew (docs/sessions.md,
// Crashes), never ends the turn as a crash.
//
// The moment is chosen, not waited for: `child_process.spawn` is wrapped
// (before the package is loaded, which takes it at load) to see the
// agent's process, and the prompt is sent from its 'exit' listener.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const childProcess = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { readJsonLines } = require('../cli/requests.cjs');

const AGENT = path.join(__dirname, 'conformance', 'sdk_agent.mjs');
const spawned = [];
const spawn = childProcess.spawn;
childProcess.spawn = function spawnSeen(...args) {
  const child = spawn.apply(this, args);
  if (args[1]?.includes(AGENT)) spawned.push(child);
  return child;
};
const pkg = require('agent-context');

test('a prompt written as the agent exits between turns goes to the agent started anew, once', { timeout: 60_000 }, async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'acp-exit-race-')));
  const log = path.join(dir, 'sent.jsonl');
  const env = { SDK_AGENT_LOG: log, SDK_AGENT_SESSIONS: path.join(dir, 'sessions.txt') };
  const definition = { id: 'sdk-agent', name: 'SDK reference agent', command: process.execPath, args: [AGENT], env, protocol: 'acp' };
  const session = await pkg.openAgentSession(definition, { cd: dir, timeout: 20, maxRetries: 0 });
  try {
    assert.equal(spawned.length, 1, 'the agent started');
    const [agent] = spawned;
    const turn = await new Promise((resolve) => {
      // Node has destroyed its stdin; the host has not heard of the exit yet.
      agent.once('exit', () => {
        assert.equal(agent.stdin.destroyed, true);
        resolve(session.prompt('Are you there?'));
      });
      agent.kill('SIGKILL');
    });
    assert.equal(turn.success, true, JSON.stringify(turn.error));
    assert.equal(turn.reply.text, 'Hello from turn 1');
    assert.equal(turn.sessionId, session.sessionId, 'the same session, resumed');
    assert.equal(spawned.length, 2, 'the agent was started again');
    const sent = readJsonLines(log);
    assert.ok(sent.some((m) => m.method === 'session/resume' && m.params.sessionId === session.sessionId), 'resumed');
    assert.equal(sent.filter((m) => m.method === 'session/prompt').length, 1, 'the prompt reached an agent once');
  } finally {
    await session.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
