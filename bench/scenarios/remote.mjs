// A kept session's turn over SSH on loopback against the same turn run
// here, on a STUB ACP agent (bench/stub-acp-agent.cjs: it measures our
// channel, not an agent): the tests' own sshd on 127.0.0.1
// (tests/remote/sshd.cjs). Each round opens a session here and one over
// SSH, prompts them turn by turn, one then the other (the order swapped
// every turn, so that both meet the machine's load alike), and closes
// them; the medians of the turns' times are compared (bar ≤ 1.5×), and the
// SSH connections each session opened are counted from the server's log
// (bar ≤ 2). Needs root (the test sshd logs in as root).
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

  /** One turn of `s`, timed (ms). */
  async function turn(s, t) {
    const t0 = performance.now();
    const result = await s.prompt(`turn ${t}`);
    const ms = performance.now() - t0;
    assert.equal(result.success, true, JSON.stringify(result.error));
    assert.equal(result.reply.text, 'ok');
    return ms;
  }

  /** A round: a session here and one over SSH, TURNS turns each, interleaved; closed. */
  async function round(here, there) {
    const before = sshd.connections();
    const local = await pkg.openAgentSession('google-gemini', options);
    const remote = await pkg.openAgentSession('google-gemini', remoteOptions);
    for (let t = 0; t < TURNS; t++) {
      if (t % 2 === 0) {
        here.push(await turn(local, t));
        there.push(await turn(remote, t));
      } else {
        there.push(await turn(remote, t));
        here.push(await turn(local, t));
      }
    }
    await local.close();
    await remote.close();
    return sshd.connections() - before;
  }

  try {
    // Warm up both (the module's compile, the first spawns, the first connection).
    await round([], []);
    const here = [];
    const there = [];
    const connections = [];
    for (let r = 0; r < ROUNDS; r++) connections.push(await round(here, there));
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
