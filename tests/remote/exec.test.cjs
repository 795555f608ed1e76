// The exec routes of options.host without a machine of their own:
// Kubernetes through a stand-in `kubectl` (a script that logs its argument
// list and runs what follows `--` here; no cluster is run here), and the
// host application's own `exec(argv, env)` function, each running the real
// Claude Code against the mock API on 127.0.0.1.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun, runFolders } = require('../cli/processes.cjs');
const { ADAPTERS } = require('../acp/adapters.cjs');
const { runFoldersThere } = require('./checks.cjs');

const TEST_TIMEOUT_MS = 180_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');

function within(body) {
  return inFreshRun(
    async () => {
      const dir = harness.tempDir('remote-exec');
      const mock = await harness.startMock('anthropic', 'plain', dir);
      const box = harness.sandbox('claude', mock, dir);
      box.env.CLAUDE_CODE_MAX_RETRIES = '0';
      return { dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
    },
    (ctx) => {
      ctx.mock.stop();
      fs.rmSync(ctx.dir, { recursive: true, force: true });
    },
    async (ctx) => {
      await body(ctx);
      assert.deepEqual(runFoldersThere(ctx.home), [], "the run's folder there is removed");
      assert.deepEqual(runFolders(), [], "the channel's folder here is removed");
    },
  );
}

/**
 * A stand-in kubectl: appends its argument list (NUL-separated, one call a
 * line) to `log`, then runs what follows `--`, in an environment of its own
 * (as a pod has: only PATH).
 */
function standInKubectl(dir) {
  const file = path.join(dir, 'kubectl');
  const log = path.join(dir, 'kubectl.log');
  fs.writeFileSync(
    file,
    [
      '#!/bin/sh',
      `for a in "$@"; do printf '%s\\0' "$a"; done >> '${log}'`,
      `printf '\\n' >> '${log}'`,
      'while [ "$#" -gt 0 ] && [ "$1" != -- ]; do shift; done',
      'shift',
      `exec env -i PATH='${process.env.PATH}' "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const calls = () =>
    fs
      .readFileSync(log, 'utf8')
      .split('\0\n')
      .filter(Boolean)
      .map((line) => line.split('\0'));
  return { file, calls };
}

test('kubernetes: kubectl exec -i with the pod, namespace, container and context; the agent runs what follows --', { timeout: TEST_TIMEOUT_MS }, () =>
  within(async (ctx) => {
    const kubectl = standInKubectl(ctx.dir);
    const run = await pkg.runAgent('claude-code', { prompt: 'Pod question: mu-8181?' }, {
      protocol: 'acp',
      cd: ctx.cwd,
      command: ADAPTERS.claude,
      model: harness.MODELS.claude,
      env: ctx.env,
      host: { kubernetes: { pod: 'agent-0', namespace: 'ci', container: 'agent', context: 'kind-test', kubectl: kubectl.file } },
      timeout: 60,
      maxRetries: 0,
    });
    assert.equal(run.success, true, JSON.stringify(run.error));
    assert.equal(run.reply.text, PLAIN_TEXT);
    const calls = kubectl.calls();
    const modes = calls.map((argv) => argv[argv.indexOf('agent-context') + 1]);
    assert.deepEqual(modes.slice(0, 2), ['probe', 'run'], JSON.stringify(modes));
    assert.ok(modes.includes('reap') && modes.at(-1) === 'clean', JSON.stringify(modes));
    for (const argv of calls) {
      assert.deepEqual(argv.slice(0, 10), ['--context', 'kind-test', 'exec', '-i', '-n', 'ci', '-c', 'agent', 'agent-0', '--']);
      assert.deepEqual(argv.slice(10, 12), ['sh', '-c']);
      assert.ok(!argv.join(' ').includes(harness.FAKE_KEYS.claude), 'no key in its argument list');
    }
  }));

test("the host's exec function: what it is given, what it answers, and a wrong answer named", { timeout: TEST_TIMEOUT_MS }, () =>
  within(async (ctx) => {
    const given = [];
    // The other side is this machine, in an environment of its own (only PATH).
    const exec = (argv, env) => {
      given.push({ argv, env });
      return { command: 'env', args: ['-i', `PATH=${process.env.PATH}`, ...argv] };
    };
    const session = await pkg.openAgentSession('claude-code', { cd: ctx.cwd, command: ADAPTERS.claude, model: harness.MODELS.claude, env: ctx.env, host: { exec }, timeout: 60, maxRetries: 0 });
    try {
      for (const text of ['One: nu-1?', 'Two: xi-2?']) {
        const turn = await session.prompt(text);
        assert.equal(turn.success, true, JSON.stringify(turn.error));
        assert.equal(turn.reply.text, PLAIN_TEXT);
      }
    } finally {
      await session.close();
    }
    assert.ok(given.length >= 3, 'the probe, the agent, its reap and the cleanup');
    for (const { argv, env } of given) {
      assert.deepEqual(argv.slice(0, 2), ['sh', '-c']);
      assert.equal(argv[3], 'agent-context');
      assert.ok(['probe', 'run', 'reap', 'kill', 'clean'].includes(argv[4]), argv[4]);
      assert.ok(!argv.join(' ').includes(harness.FAKE_KEYS.claude), 'no key in the argument list it is given');
      assert.equal(typeof env, 'object');
    }
    await assert.rejects(
      pkg.openAgentSession('claude-code', { cd: ctx.cwd, command: ADAPTERS.claude, env: ctx.env, host: { exec: () => ({ args: [] }) } }),
      (err) => err.code === 'INVALID_INPUT' && /options\.host\.exec's answer\.command must be a non-empty string/.test(err.message),
    );
    await assert.rejects(
      pkg.openAgentSession('claude-code', { cd: ctx.cwd, env: ctx.env, host: { exec: 'kubectl exec' } }),
      (err) => err.code === 'INVALID_INPUT' && /options\.host\.exec must be a function/.test(err.message),
    );
  }));
