// Zed's frozen Claude adapter (@zed-industries/claude-agent-acp 0.23.1,
// pinned in tests/agents as one of the tested versions), live against the
// Anthropic mock: a run through it warns once, naming the maintained
// @agentclientprotocol/claude-agent-acp; and a turn resumed through it in a
// second run (sessionId) is tried RESUME_TRIES times, each outcome counted
// from the model requests the mock recorded: the earlier turn carried, or
// the resume failing in words, or the earlier reply silently missing — the
// last must never happen. FROZEN_RESUME_TRIES changes the count.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnsAsking } = require('../cli/requests.cjs');

const ZED = path.join(__dirname, '..', 'agents', 'node_modules', '@zed-industries', 'claude-agent-acp');
const installed = fs.existsSync(path.join(ZED, 'package.json'));
const COMMAND = installed ? path.join(ZED, JSON.parse(fs.readFileSync(path.join(ZED, 'package.json'), 'utf8')).bin['claude-agent-acp']) : null;
const RESUME_TRIES = Number(process.env.FROZEN_RESUME_TRIES || 10);
const TEST_TIMEOUT_MS = 60_000 + RESUME_TRIES * 45_000;
const BASE = path.join(harness.ROOT, 'target', 'frozen-adapter');
const PLAIN_TEXT = PLAIN_PIECES.join('');
const SECOND = 'And for the admin pages (mark 3318)?';

async function setUp() {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, 'run-'));
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  for (const d of [home, work]) fs.mkdirSync(d, { recursive: true });
  const mock = await harness.startMock('anthropic', 'plain', dir);
  return { dir, home, cwd: fs.realpathSync(work), mock, env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' } };
}

function cleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

function options(ctx, warnings, more = {}) {
  return {
    protocol: 'acp',
    cd: ctx.cwd,
    command: COMMAND,
    env: ctx.env,
    endpoint: { baseUrl: ctx.mock.baseUrl, apiKey: 'sk-frozen-test', model: 'claude-mock-1' },
    logger: (message) => warnings.push(message),
    timeout: 60,
    maxRetries: 0,
    ...more,
  };
}

const strings = (value, out = []) => {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
};

/** The outcome of one try: a run, then a second run resuming its session. */
async function resumeOnce(ctx) {
  const warnings = [];
  const first = await pkg.runAgent('claude-code', { prompt: 'Which UI framework should we use?' }, options(ctx, warnings));
  if (!first.success) return { outcome: 'first run failed', detail: first.error?.message };
  const second = await pkg.runAgent('claude-code', { prompt: SECOND }, options(ctx, warnings, { sessionId: first.sessionId }));
  if (!second.success) return { outcome: 'reported', detail: `${second.error.kind}: ${second.error.message}` };
  // The turn calls asking the second prompt (not a side call: a session
  // title holds the prompt alone; the mock logs each call's kind).
  const asked = turnsAsking(ctx.mock.requests(), 'mark 3318');
  const carried = asked.length > 0 && asked.every((r) => (r.body.messages ?? []).some((m) => m.role === 'assistant' && strings(m.content).some((s) => s.includes(PLAIN_TEXT))));
  return { outcome: carried ? 'carried' : 'lost silently', detail: second.warnings };
}

describe("Zed's frozen Claude adapter", { skip: installed ? false : '@zed-industries/claude-agent-acp is not installed in tests/agents' }, () => {
  test('a run through it warns once, naming the maintained adapter; a session too', { timeout: TEST_TIMEOUT_MS }, () =>
    inFreshRun(setUp, cleanUp, async (ctx) => {
      const warnings = [];
      const result = await pkg.runAgent('claude-code', { prompt: 'Which UI framework should we use?' }, options(ctx, warnings));
      assert.equal(result.success, true, JSON.stringify(result.error));
      const said = warnings.filter((w) => w.includes('no longer maintained'));
      assert.equal(said.length, 1, JSON.stringify(warnings));
      assert.match(said[0], /@zed-industries\/claude-agent-acp 0\.23\.1 is no longer maintained/);
      assert.match(said[0], /install @agentclientprotocol\/claude-agent-acp/);
      const { protocol: _p, ...sessionOptions } = options(ctx, warnings);
      const session = await pkg.openAgentSession('claude-code', sessionOptions);
      try {
        assert.equal((await session.prompt('One?')).success, true);
        assert.equal((await session.prompt('Two?')).success, true);
      } finally {
        await session.close();
      }
      assert.equal(warnings.filter((w) => w.includes('no longer maintained')).length, 2, 'once for the run, once for the session');
    }));

  test(`a turn resumed through it, ${RESUME_TRIES} tries: never silently without the earlier turn`, { timeout: TEST_TIMEOUT_MS }, async (t) => {
    const counts = {};
    for (let i = 0; i < RESUME_TRIES; i += 1) {
      await inFreshRun(setUp, cleanUp, async (ctx) => {
        const { outcome, detail } = await resumeOnce(ctx);
        counts[outcome] = (counts[outcome] ?? 0) + 1;
        t.diagnostic(`try ${i + 1}: ${outcome}${detail ? ` (${typeof detail === 'string' ? detail : JSON.stringify(detail)})` : ''}`);
      });
    }
    t.diagnostic(`outcomes of ${RESUME_TRIES} tries: ${JSON.stringify(counts)}`);
    assert.equal(counts['lost silently'] ?? 0, 0, JSON.stringify(counts));
    assert.equal(counts['first run failed'] ?? 0, 0, JSON.stringify(counts));
  });
});
