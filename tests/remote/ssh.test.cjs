// Agents on another machine over SSH, for real: Debian's OpenSSH server on
// 127.0.0.1 (a key and a configuration the test makes, ./sshd.cjs), the
// agents of the test's own installs reached through it, offline against
// the mock APIs. runAgent over the CLI and a kept ACP session of three
// turns, for Claude Code and Codex: the replies, the mock's requests, no
// API key in any process's argument list during a turn, one SSH connection
// for the session, nothing left after close (processes, the run's folder
// there, the shared connection). The ssh client killed mid-turn: that turn
// is a crash (transport_lost), the next one reconnects to the same session.
'use strict';
const { describe, test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun, runFolders } = require('../cli/processes.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');
const { startSshd, available } = require('./sshd.cjs');
const { keyInAnyArgumentList, runFoldersThere, channelProcesses, waitFor } = require('./checks.cjs');

const TEST_TIMEOUT_MS = 180_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const MAIN_CALL = { claude: '/v1/messages', codex: '/v1/responses' };
const ACP_MODELS = { ...harness.MODELS, codex: CODEX_MODEL };
const skip = available() ? false : 'the test sshd logs in as root: run as root';

let sshd;
before(async () => {
  if (!skip) sshd = await startSshd(harness.tempDir('remote-sshd'));
});
after(() => sshd?.stop());

async function setUp(cli, scenario) {
  const dir = harness.tempDir(`remote-ssh-${cli}-${scenario}`);
  const mock = await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const box = harness.sandbox(cli, mock, dir);
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  return { cli, dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd), sessions: [] };
}

function within(cli, scenario, body) {
  return inFreshRun(
    () => setUp(cli, scenario),
    (ctx) => {
      ctx.mock.stop();
      fs.rmSync(ctx.dir, { recursive: true, force: true });
    },
    async (ctx) => {
      try {
        await body(ctx);
      } finally {
        for (const session of ctx.sessions) await session.close();
      }
      assert.deepEqual(runFoldersThere(ctx.home), [], "the run's folder there is removed");
      assert.deepEqual(channelProcesses(ctx.home), [], 'no ssh process of the run is left');
      assert.deepEqual(runFolders(), [], "the channel's folder here is removed");
    },
  );
}

const mainCalls = (ctx) => ctx.mock.requests().filter((r) => r.url.includes(MAIN_CALL[ctx.cli]) && (ctx.cli !== 'claude' || (Array.isArray(r.body.tools) && r.body.tools.length > 0)));
const bodyText = (request) => JSON.stringify(request.body);

/** Calls `body()` while sampling every process's argument list for the run's API key; resolves what body resolved. */
async function watchingArguments(ctx, body) {
  const key = harness.FAKE_KEYS[ctx.cli];
  const seen = [];
  let samples = 0;
  const timer = setInterval(() => {
    samples += 1;
    seen.push(...keyInAnyArgumentList(key));
  }, 100);
  try {
    const value = await body();
    seen.push(...keyInAnyArgumentList(key));
    return { value, seen, samples };
  } finally {
    clearInterval(timer);
  }
}

for (const cli of ['claude', 'codex']) {
  describe(`over SSH: ${cli}`, { skip }, () => {
    test('runAgent over the CLI: the reply, the request the mock saw, no key in any argument list, nothing left', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const before = sshd.connections();
        const { value: run, seen, samples } = await watchingArguments(ctx, () =>
          pkg.runAgent(harness.CLIS[cli].agentType, { prompt: 'Remote question: kappa-5150?' }, {
            cd: ctx.cwd,
            command: harness.executable(cli),
            model: harness.MODELS[cli],
            env: ctx.env,
            host: sshd.host(),
            timeout: 60,
            maxRetries: 0,
          }),
        );
        assert.equal(run.success, true, JSON.stringify(run.error));
        assert.equal(run.reply.text, PLAIN_TEXT);
        assert.ok(mainCalls(ctx).some((r) => bodyText(r).includes('kappa-5150')), 'the model got the prompt');
        assert.ok(samples > 0);
        assert.deepEqual(seen, [], 'the API key is in no argument list');
        assert.equal(sshd.connections() - before >= 1, true);
      }));

    test('a kept ACP session of three turns: one process, one session, one SSH connection; nothing left after close', { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        const before = sshd.connections();
        const { value: turns, seen } = await watchingArguments(ctx, async () => {
          const session = await pkg.openAgentSession(harness.CLIS[cli].agentType, {
            cd: ctx.cwd,
            command: ADAPTERS[cli],
            model: ACP_MODELS[cli],
            env: ctx.env,
            host: sshd.host(),
            timeout: 60,
            maxRetries: 0,
          });
          ctx.sessions.push(session);
          const out = [];
          for (const text of ['First: alpha-7731?', 'Second: beta-2294?', 'Third: gamma-5518?']) out.push(await session.prompt(text));
          out.push(session.sessionId);
          await session.close();
          return out;
        });
        const sessionId = turns.pop();
        for (const turn of turns) {
          assert.equal(turn.success, true, JSON.stringify(turn.error));
          assert.equal(turn.reply.text, PLAIN_TEXT);
          assert.equal(turn.sessionId, sessionId);
        }
        const last = mainCalls(ctx).pop();
        for (const text of ['alpha-7731', 'beta-2294', 'gamma-5518']) assert.ok(bodyText(last).includes(text), `the third request holds "${text}"`);
        assert.deepEqual(seen, [], 'the API key is in no argument list');
        assert.equal(sshd.connections() - before, 1, 'one SSH connection for the session');
      }));
  });
}

describe('over SSH: the channel cut mid-turn', { skip }, () => {
  test('the ssh client killed mid-turn: that turn is a crash (transport_lost); the next one reconnects to the same session', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'stallSecond', async (ctx) => {
      const session = await pkg.openAgentSession('claude-code', {
        cd: ctx.cwd,
        command: ADAPTERS.claude,
        model: ACP_MODELS.claude,
        env: ctx.env,
        host: sshd.host(),
        timeout: 60,
        maxRetries: 0,
      });
      ctx.sessions.push(session);
      const first = await session.prompt('Remember: zeta-4410.');
      assert.equal(first.success, true, JSON.stringify(first.error));
      // The mock starts its answer, then goes silent: the turn is under way.
      const events = [];
      const stalled = session.prompt('This one stalls.', { onEvent: (event) => events.push(JSON.stringify(event)) });
      await waitFor('the second turn started answering', () => events.some((e) => e.includes('Let me think')));
      const clients = channelProcesses(ctx.home).filter((p) => p.mode === 'run');
      assert.equal(clients.length, 1, JSON.stringify(clients));
      process.kill(clients[0].pid, 'SIGKILL');
      const cut = await stalled;
      assert.equal(cut.success, false, JSON.stringify(cut));
      assert.equal(cut.error.kind, 'process_error', JSON.stringify(cut.error));
      assert.match(cut.error.message, /transport_lost: ssh /);
      const next = await session.prompt('What did I ask you to remember?');
      assert.equal(next.success, true, JSON.stringify(next.error));
      assert.equal(next.sessionId, session.sessionId);
      assert.ok(bodyText(mainCalls(ctx).pop()).includes('zeta-4410'), 'the same session, reopened');
      await session.close();
    }));
});

describe('over SSH: what the other side lacks', { skip }, () => {
  test('an agent not installed there is command_not_found naming the host; a cd missing there is invalid_params', { timeout: TEST_TIMEOUT_MS }, () =>
    within('claude', 'plain', async (ctx) => {
      const options = { cd: ctx.cwd, env: ctx.env, host: sshd.host(), maxRetries: 0 };
      const missing = await pkg.runAgent('claude-code', { prompt: 'x' }, { ...options, command: 'no-such-agent-7d1' });
      assert.equal(missing.error.kind, 'command_not_found', JSON.stringify(missing.error));
      assert.match(missing.error.message, /no-such-agent-7d1 was not found on ssh [^ ]+@127\.0\.0\.1:\d+/);
      const away = await pkg.runAgent('claude-code', { prompt: 'x' }, { ...options, cd: path.join(ctx.cwd, 'not-there') });
      assert.equal(away.error.kind, 'invalid_params', JSON.stringify(away.error));
      assert.match(away.error.message, /options\.cd does not exist on ssh /);
      const wrong = await pkg.runAgent('claude-code', { prompt: 'x' }, { ...options, host: { ssh: { host: '127.0.0.1', port: 0 } } });
      assert.equal(wrong.error.kind, 'invalid_params');
      assert.match(wrong.error.message, /options\.host\.ssh\.port must be a whole number/);
      await assert.rejects(pkg.openAgentSession('claude-code', { ...options, host: { ssh: { host: '127.0.0.1', user: 'a b' } } }), (err) => err.code === 'INVALID_INPUT' && /options\.host\.ssh\.user/.test(err.message));
    }));
});
