// An agent in a container, for real: a Docker Engine of the test's own
// (Debian's docker.io, ./dockerd.cjs), an image imported from local files,
// the agent from the test's own installs mounted in. runAgent over ACP
// inside the container (`docker exec -i`) against the mock API on
// 127.0.0.1: the reply, no API key in any argument list, nothing left
// running in the container after (`docker top`), its run folder removed.
'use strict';
const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { ADAPTERS } = require('../acp/adapters.cjs');
const { startDockerd, available } = require('./dockerd.cjs');
const { keyInAnyArgumentList, runFoldersThere, waitFor } = require('./checks.cjs');
const { runFolders } = require('../cli/processes.cjs');
const { turnsAsking } = require('../cli/requests.cjs');

const TEST_TIMEOUT_MS = 180_000;
const skip = available() ? false : 'the Docker Engine runs as root: run as root';
const CONTAINER = `agent-context-test-${process.pid}`;
// The adapter at its real path: what the container has mounted.
const ADAPTER = fs.realpathSync(ADAPTERS.claude);

let dockerd;
let ctx;
before(async () => {
  if (skip) return;
  const dir = harness.tempDir('remote-docker');
  const mock = await harness.startMock('anthropic', 'plain', dir);
  const box = harness.sandbox('claude', mock, dir);
  box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  ctx = { dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd) };
  dockerd = await startDockerd();
  // The agents of the test's own installs, and the test's folder (HOME, cd), at their own paths.
  const agents = fs.realpathSync(path.join(harness.ROOT, 'tests', 'agents', 'node_modules'));
  dockerd.start(CONTAINER, [agents, fs.realpathSync(dir)]);
  // The docker CLI the channel runs finds this daemon.
  process.env.DOCKER_HOST = dockerd.host;
});
after(async () => {
  delete process.env.DOCKER_HOST;
  await dockerd?.stop();
  if (ctx) {
    ctx.mock.stop();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }
});

test('runAgent over ACP inside a container: the reply, no key in any argument list, nothing left in it after', { skip, timeout: TEST_TIMEOUT_MS }, async () => {
  const seen = [];
  const timer = setInterval(() => seen.push(...keyInAnyArgumentList(harness.FAKE_KEYS.claude)), 100);
  let run;
  try {
    run = await pkg.runAgent('claude-code', { prompt: 'Container question: lambda-6061?' }, {
      protocol: 'acp',
      cd: ctx.cwd,
      command: ADAPTER,
      model: harness.MODELS.claude,
      env: ctx.env,
      host: { docker: { container: CONTAINER } },
      timeout: 60,
      maxRetries: 0,
    });
  } finally {
    clearInterval(timer);
  }
  assert.equal(run.success, true, JSON.stringify(run.error));
  assert.equal(run.reply.text, PLAIN_PIECES.join(''));
  // The turn's call (not the adapter's title call, which holds the prompt too).
  const asked = turnsAsking(ctx.mock.requests(), 'lambda-6061');
  assert.ok(asked.length > 0, 'the model got the prompt');
  assert.deepEqual(seen, [], 'the API key is in no argument list');
  // The group there was sent SIGKILL: its processes go within moments.
  await waitFor('nothing left running in the container', () => dockerd.top(CONTAINER).length === 0, 10_000).catch(() => {});
  assert.deepEqual(dockerd.top(CONTAINER), [], 'nothing left running in the container');
  assert.deepEqual(runFoldersThere(ctx.home), [], "the run's folder there is removed");
  assert.deepEqual(runFolders(), [], "the channel's folder here is removed");
});

test('a container that is not there: the run cannot start, naming it', { skip, timeout: TEST_TIMEOUT_MS }, async () => {
  const run = await pkg.runAgent('claude-code', { prompt: 'x' }, { protocol: 'acp', cd: ctx.cwd, command: ADAPTER, env: ctx.env, host: { docker: { container: 'no-such-container-19' } }, maxRetries: 0 });
  assert.equal(run.success, false);
  assert.equal(run.error.kind, 'spawn_failed', JSON.stringify(run.error));
  assert.match(run.error.message, /docker container no-such-container-19 could not be reached: .*no-such-container-19/);
  assert.deepEqual(runFolders(), [], "the channel's folder here is removed");
});
