// runAgent on an ACP registry entry: the real Gemini CLI started through its
// entry's npx distribution (`npx -y @google/gemini-cli@<version> --acp`, as
// the registry publishes it), as an agent the library knows nothing about
// (the entry's id is `gemini`, not the built-in `google-gemini`), offline
// against the Gemini mock on 127.0.0.1.
//
// npx is kept offline and fast: its cache is this machine's npm cache,
// which holds the package the live tests installed (tests/agents,
// scripts/setup.sh --agents), and `npm_config_offline` forbids the network
// (a missing package fails at once with ENOTCACHED instead of fetching).
// Each run has its own HOME; nothing of it may be left running.
'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun } = require('../cli/processes.cjs');

const TEST_TIMEOUT_MS = 240_000;
const BASE = path.join(harness.ROOT, 'target', 'acp-registry-live');
const GEMINI_PACKAGE = path.join(harness.ROOT, 'tests', 'agents', 'node_modules', '@google', 'gemini-cli', 'package.json');
const VERSION = JSON.parse(fs.readFileSync(GEMINI_PACKAGE, 'utf8')).version;
const NPM_CACHE = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
const SYSTEM_MARK = 'Answer as the mock team lead (system mark 7741).';

/** Gemini CLI's entry, in the shape the ACP agent registry publishes it. */
const ENTRY = {
  id: 'gemini',
  name: 'Gemini CLI',
  version: VERSION,
  description: "Google's official CLI for Gemini",
  repository: 'https://github.com/google-gemini/gemini-cli',
  authors: ['Google'],
  license: 'Apache-2.0',
  distribution: { npx: { package: `@google/gemini-cli@${VERSION}`, args: ['--acp'] } },
};

async function setUp(scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `gemini-${scenario}-`));
  const mock = await harness.startMock('gemini', scenario, dir);
  const box = harness.sandbox('gemini', mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  const env = { ...box.env, npm_config_cache: NPM_CACHE, npm_config_offline: 'true', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  return { dir, mock, env, home: box.home, cwd: fs.realpathSync(box.cwd) };
}

function within(scenario, body) {
  return inFreshRun(() => setUp(scenario), (ctx) => {
    ctx.mock.stop();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }, body);
}

const run = (ctx, request) => pkg.runAgent(ENTRY, request, { cd: ctx.cwd, env: ctx.env, timeout: 120, maxDuration: 200, maxRetries: 0 });

test(`runAgent(registry entry): Gemini CLI ${VERSION} through npx answers with the same reply model`, { timeout: TEST_TIMEOUT_MS }, () =>
  within('plain', async (ctx) => {
    const result = await run(ctx, { prompt: 'Which UI framework should we use?', systemFlag: SYSTEM_MARK });
    assert.equal(result.success, true, JSON.stringify(result.error));
    assert.equal(result.agentType, 'gemini');
    assert.equal(result.reply.text, PLAIN_PIECES.join(''));
    assert.equal(result.reply.status, 'success');
    assert.ok(typeof result.sessionId === 'string' && result.sessionId.length > 0, JSON.stringify(result));
    const calls = ctx.mock.turns();
    assert.ok(calls.length > 0, 'Gemini CLI called the mock');
    // An agent the library does not know takes the instructions inline, first.
    assert.ok(JSON.stringify(calls[0].body).includes(`${SYSTEM_MARK}\\n\\nWhich UI framework`), JSON.stringify(calls[0].body).slice(0, 2000));
  }));

test('runAgent(registry entry): an HTTP 500 is upstream_error', { timeout: TEST_TIMEOUT_MS }, () =>
  within('error500', async (ctx) => {
    const result = await run(ctx, { prompt: 'Which UI framework should we use?' });
    assert.equal(result.success, false, JSON.stringify(result));
    assert.equal(result.error.kind, 'upstream_error', JSON.stringify(result.error));
    assert.equal(result.agentType, 'gemini');
  }));
