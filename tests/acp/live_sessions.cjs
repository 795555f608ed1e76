// What the live session tests share: a folder, HOME and mock API for each
// test (the real agent over ACP, offline against the mock on 127.0.0.1),
// sessions closed when the test ends whatever happens, and the model calls
// the mock saw.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun } = require('../cli/processes.cjs');
const { turnsAsking: requestsTurnsAsking } = require('../cli/requests.cjs');

const TEST_TIMEOUT_MS = 180_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const MAIN_CALL = { claude: '/v1/messages', codex: '/v1/responses', gemini: ':streamGenerateContent' };
const { ADAPTERS, CODEX_MODEL } = require('./adapters.cjs');
const ACP_MODELS = { ...harness.MODELS, codex: CODEX_MODEL };
const BASE = path.join(harness.ROOT, 'target', 'acp-sessions');

async function setUp(cli, scenario) {
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${cli}-${scenario}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  if (cli === 'codex') {
    const config = path.join(box.home, '.codex', 'config.toml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('stream_max_retries = 1', 'stream_max_retries = 0'));
  }
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd), sessions: [] };
}

function within(cli, scenario, body) {
  const guarded = async (ctx) => {
    try {
      await body(ctx);
    } finally {
      for (const session of ctx.sessions) await session.close();
    }
  };
  return inFreshRun(() => setUp(cli, scenario), (ctx) => {
    ctx.mock.stop();
    fs.rmSync(ctx.dir, { recursive: true, force: true });
  }, guarded);
}

/** Opens a session that is closed when the test ends, whatever happens. */
async function open(ctx, options = {}) {
  const session = await openSession(ctx, options);
  ctx.sessions.push(session);
  return session;
}

function openSession(ctx, options = {}) {
  return pkg.openAgentSession(harness.CLIS[ctx.cli].agentType, {
    cd: ctx.cwd,
    command: ADAPTERS[ctx.cli],
    model: ACP_MODELS[ctx.cli],
    env: ctx.env,
    timeout: 30,
    maxDuration: 90,
    maxRetries: 0,
    ...options,
  });
}

// The calls of the agent's turns (the mock logs each request's kind): not
// the side calls beside them (Claude's adapter asks for a session title and
// a suggestion of the next prompt, Codex's for a title of a new thread).
const mainCalls = (ctx) => ctx.mock.turns();
/** The turn calls that open the turn asking `needle` (their last user message holds it). */
const turnsAsking = (ctx, needle) => requestsTurnsAsking(ctx.mock.requests(), needle);
/** The one turn call asking `needle`: that turn's own request. */
function turnAsking(ctx, needle) {
  const found = turnsAsking(ctx, needle);
  assert.equal(found.length, 1, `one ${ctx.cli} turn call asking ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}
const bodyText = (request) => JSON.stringify(request.body);

function succeeded(turn) {
  assert.equal(turn.success, true, JSON.stringify(turn.error));
}

module.exports = { TEST_TIMEOUT_MS, PLAIN_TEXT, MAIN_CALL, ACP_MODELS, ADAPTERS, setUp, within, open, openSession, mainCalls, turnsAsking, turnAsking, bodyText, succeeded };
