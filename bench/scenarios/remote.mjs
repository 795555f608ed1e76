// A kept session's turn over SSH on loopback against the same turn run
// here, on a STUB ACP agent (bench/stub-acp-agent.cjs: it measures our
// channel, not an agent): the tests' own sshd on 127.0.0.1
// (tests/remote/sshd.cjs). Rounds alternate a local session and one over
// SSH, each opened, prompted TURNS times and closed; the medians of the
// turns' times are compared (bar ≤ 1.5×), and the SSH connections each
// session opened are counted from the server's log (bar ≤ 2). Needs root
// (the test sshd logs in as root).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { report, smoke } from '../measure.mjs';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const { startSshd, available } = require('../../tests/remote/sshd.cjs');
const STUB = fileURLToPath(new URL('../stub-acp-agent.cjs', import.meta.url));
const ROUNDS = smoke ? 1 : 5;
const TURNS = smoke ? 3 : 40;
const scenario = 'remote: a kept session turn over SSH on loopback (stub agent)';

const median = (samples) => [...samples].sort((a, b) => a - b)[samples.length >> 1];
const ms = (n) => n.toFixed(2);

if (!available()) {
  const why = 'not measured (the test sshd needs root)';
  report({ family: 'remote', scenario, target: { name: 'kept session turn over SSH / the same turn here', measured: why, required: '≤ 1.5×', met: null } });
  report({ family: 'remote', scenario: `${scenario}: connections`, target: { name: '  SSH connections opened per session', measured: why, required: '≤ 2', met: null } });
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-bench-remote-'));
  const cwd = path.join(dir, 'work');
  fs.mkdirSync(cwd);
  const sshd = await startSshd(path.join(dir, 'sshd'));
  const options = { cd: cwd, command: STUB, timeout: 60, maxDuration: 120, maxRetries: 0 };
  const remoteOptions = { ...options, host: sshd.host(), env: { PATH: process.env.PATH } };

  /** One session: opened, TURNS turns, closed; the turns' times in ms, and the SSH connections it opened. */
  async function session(opts) {
    const before = sshd.connections();
    const s = await pkg.openAgentSession('google-gemini', opts);
    const times = [];
    for (let t = 0; t < TURNS; t++) {
      const t0 = performance.now();
      const turn = await s.prompt(`turn ${t}`);
      times.push(performance.now() - t0);
      assert.equal(turn.success, true, JSON.stringify(turn.error));
      assert.equal(turn.reply.text, 'ok');
    }
    await s.close();
    return { times, connections: sshd.connections() - before };
  }

  try {
    // Warm up both (the module's compile, the first spawns, the first connection).
    await session(options);
    await session(remoteOptions);
    const here = [];
    const there = [];
    const connections = [];
    for (let round = 0; round < ROUNDS; round++) {
      here.push(...(await session(options)).times);
      const remote = await session(remoteOptions);
      there.push(...remote.times);
      connections.push(remote.connections);
    }
    const ratio = median(there) / median(here);
    report({ family: 'remote', scenario, impl: 'here', turns: here.length, medianMs: median(here) });
    report({ family: 'remote', scenario, impl: 'over SSH', turns: there.length, medianMs: median(there) });
    report({
      family: 'remote',
      scenario: `${scenario}: ratio`,
      target: {
        name: 'kept session turn over SSH on loopback / the same turn here (stub agent)',
        measured: `${ms(ratio)}× (medians ${ms(median(there))} vs ${ms(median(here))} ms; ${there.length} turns each)`,
        required: '≤ 1.5×',
        met: ratio <= 1.5,
      },
    });
    const most = Math.max(...connections);
    report({
      family: 'remote',
      scenario: `${scenario}: connections`,
      target: { name: '  SSH connections opened per session (open, turns, close)', measured: `${most} (sessions: ${connections.join(', ')})`, required: '≤ 2', met: most <= 2 },
    });
  } finally {
    sshd.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
