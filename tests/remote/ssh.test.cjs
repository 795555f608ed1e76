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
const { spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('../cli/harness.cjs');
const { PLAIN_PIECES } = require('../cli/mocks/common.cjs');
const { inFreshRun, runFolders } = require('../cli/processes.cjs');
const { turnsAsking } = require('../cli/requests.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');
const { startSshd, available } = require('./sshd.cjs');
const { keyInAnyArgumentList, runFoldersThere, channelProcesses, waitFor } = require('./checks.cjs');

const TEST_TIMEOUT_MS = 180_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const ACP_MODELS = { ...harness.MODELS, codex: CODEX_MODEL };
const skip = available() ? false : 'the test sshd logs in as root: run as root';

let sshd;
let sshdDir;
before(async () => {
  if (skip) return;
  sshdDir = harness.tempDir('remote-sshd');
  sshd = await startSshd(sshdDir);
});
after(() => {
  sshd?.stop();
  if (sshdDir) fs.rmSync(sshdDir, { recursive: true, force: true });
});

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
      // close() resolved once the shared connection's process was gone
      // (its control socket removed), not only once `ssh -O exit` answered.
      assert.deepEqual(channelProcesses(ctx.home), [], 'no ssh process of the run is left when close() resolves');
      assert.deepEqual(runFolders(), [], "the channel's folder here is removed");
    },
  );
}

/** The one turn call asking `needle` (its last user message holds it): that turn's own request, not a side call beside it (Claude's adapter asks for a session title and a suggestion of the next prompt; the mock logs each call's kind). */
function turnAsking(ctx, needle) {
  const found = turnsAsking(ctx.mock.requests(), needle);
  assert.equal(found.length, 1, `one turn call asking ${JSON.stringify(needle)}, found ${found.length}`);
  return found[0];
}
const bodyText = (request) => JSON.stringify(request.body);

/** Calls `body()` while sampling every process's argument list for `key` (the run's API key); resolves what body resolved. */
async function watchingArguments(ctx, body, key = harness.FAKE_KEYS[ctx.cli]) {
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
        turnAsking(ctx, 'kappa-5150');
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
        const last = turnAsking(ctx, 'gamma-5518');
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
      assert.ok(bodyText(turnAsking(ctx, 'What did I ask you to remember?')).includes('zeta-4410'), 'the same session, reopened');
      await session.close();
    }));
});

describe('over SSH: the endpoint option', { skip }, () => {
  const KEY = 'sk-endpoint-over-ssh-5521';
  const KEY_HEADER = { claude: ['x-api-key', KEY], gemini: ['x-goog-api-key', KEY] };
  for (const [cli, protocol, command] of [
    ['gemini', 'cli', harness.executable('gemini')],
    ['claude', 'acp', ADAPTERS.claude],
  ]) {
    test(`${cli} over ${protocol === 'cli' ? 'the CLI' : 'ACP'}: the endpoint's key and URL reach the agent there, in no argument list; the user's settings there are untouched`, { timeout: TEST_TIMEOUT_MS }, () =>
      within(cli, 'plain', async (ctx) => {
        // Nothing of the agent's in the environment: the endpoint alone says where and with which key.
        const env = Object.fromEntries(Object.entries(ctx.env).filter(([k]) => !/API_KEY|BASE_URL/.test(k)));
        const settings = path.join(ctx.home, '.gemini', 'settings.json');
        const before = fs.existsSync(settings) ? fs.readFileSync(settings, 'utf8') : null;
        const { value: run, seen } = await watchingArguments(
          ctx,
          () =>
            pkg.runAgent(harness.CLIS[cli].agentType, { prompt: 'Endpoint question: omicron-3141?' }, {
              protocol,
              cd: ctx.cwd,
              command,
              env,
              host: sshd.host(),
              endpoint: { baseUrl: ctx.mock.baseUrl, apiKey: KEY, model: harness.MODELS[cli] },
              timeout: 60,
              maxRetries: 0,
            }),
          KEY,
        );
        assert.equal(run.success, true, JSON.stringify(run.error));
        assert.equal(run.reply.text, PLAIN_TEXT);
        const [header, value] = KEY_HEADER[cli];
        const calls = turnsAsking(ctx.mock.requests(), 'omicron-3141');
        assert.ok(calls.some((c) => c.headers[header] === value), `the key arrives in ${header}`);
        assert.deepEqual(seen, [], 'the key is in no argument list');
        if (before !== null) assert.equal(fs.readFileSync(settings, 'utf8'), before, "the user's settings there are untouched");
      }));
  }
});

describe("over SSH: the host's exit", { skip }, () => {
  // The process layer alone: a stub ACP agent (bench/stub-acp-agent.cjs), in a host that is then ended.
  const STUB = path.join(harness.ROOT, 'bench', 'stub-acp-agent.cjs');
  for (const signal of ['SIGTERM', 'SIGINT']) {
    test(`a host ended by ${signal} with a session open over SSH leaves nothing there: the agent, the run's folder, the shared connection`, { timeout: TEST_TIMEOUT_MS }, () =>
      within('claude', 'plain', async (ctx) => {
        const script = `
          const pkg = require(${JSON.stringify(require.resolve('agent-context'))});
          pkg.openAgentSession('google-gemini', ${JSON.stringify({ cd: ctx.cwd, command: STUB, env: { PATH: process.env.PATH, HOME: ctx.home }, host: sshd.host() })})
            .then((s) => s.prompt('hello'))
            .then((turn) => console.log(turn.success ? 'ready' : JSON.stringify(turn.error)));
          setInterval(() => {}, 1000);`;
        const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (chunk) => {
          out += chunk;
        });
        await waitFor('the session answered', () => out.includes('\n'));
        assert.equal(out.trim(), 'ready');
        assert.ok(runFoldersThere(ctx.home).length > 0, "the run's folder is there while it runs");
        const exited = new Promise((resolve) => child.once('exit', (code, sig) => resolve(sig)));
        child.kill(signal);
        assert.equal(await exited, signal, 'the host still ends by its signal');
        await waitFor('nothing of the run left there', () => runFoldersThere(ctx.home).length === 0 && channelProcesses(ctx.home).length === 0, 10_000);
        const here = path.join(require('node:os').homedir(), '.cache', 'agent-context', 'runs');
        const left = fs.existsSync(here) ? fs.readdirSync(here).filter((n) => n.startsWith(`run-${child.pid}-`)) : [];
        assert.deepEqual(left, [], "the host's folder of the run is removed");
      }));
  }
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
