// `endpoint` alone points each built-in agent at a model endpoint, live:
// the real CLI and its ACP pair (the adapter, or the CLI's own ACP mode)
// against a mock API on 127.0.0.1, with a fresh empty HOME and no variable
// or settings file of the test's about the agent — only PATH, HOME,
// TMPDIR, the locale and a dead proxy for anything but loopback. The mock
// records the request (the family's path, the key, a custom header); the
// reply's text arrives; the run's own folder is gone afterwards; and HOME
// holds no configuration file of the user's afterwards (the agents' own
// caches, logs and state are listed, not judged: see docs/endpoint.md).
// A second HOME holding the user's own settings for the agent is byte-
// identical before and after. Gemini CLI also runs as a user other than
// root (its settings reach it through a home of the run's own, not a
// system settings file, which it reads only when root owns it), and
// resumes its session in a second run.
'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync, spawn } = require('node:child_process');
const pkg = require('agent-context');
const harness = require('./harness.cjs');
const chat = require('./openai_chat_agents.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { inFreshRun, runFolders } = require('./processes.cjs');
const { turnCalls } = require('./requests.cjs');
const { ADAPTERS, CODEX_MODEL } = require('../acp/adapters.cjs');

const TEST_TIMEOUT_MS = 200_000;
// What a run may take: these tests are about where the agent is pointed, not
// its speed, and an agent starting with an empty HOME (opencode fetching its
// model list through the dead proxy first) printed nothing for 60 s at load 25.
const IDLE_S = 120;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const KEY = 'sk-endpoint-test-key';
const HEADER = ['X-Endpoint-Mark', 'mark-4711'];
const BASE = path.join(harness.ROOT, 'target', 'endpoint-live'); // Codex refuses a CODEX_HOME under /tmp

/**
 * Each agent: its API family's mock, the path its main call goes to, the
 * header the key arrives in, the model, the executables per protocol, and
 * the configuration files of the user's that it reads (relative to HOME):
 * none of them may appear or change.
 */
const AGENTS = {
  claude: {
    agentType: 'claude-code', api: 'anthropic', call: '/v1/messages', key: ['x-api-key', KEY], model: 'claude-mock-1',
    cli: harness.executable('claude'), acp: ADAPTERS.claude, userConfig: ['.claude/settings.json', '.claude/settings.local.json'],
  },
  codex: {
    agentType: 'openai-codex', api: 'openai', call: '/v1/responses', key: ['authorization', `Bearer ${KEY}`], model: CODEX_MODEL,
    cli: harness.executable('codex'), acp: ADAPTERS.codex, userConfig: ['.codex/config.toml', '.codex/auth.json'],
  },
  gemini: {
    agentType: 'google-gemini', api: 'gemini', call: ':streamGenerateContent', key: ['x-goog-api-key', KEY], model: 'gemini-2.5-flash',
    cli: harness.executable('gemini'), acp: ADAPTERS.gemini, userConfig: ['.gemini/settings.json', '.gemini/.env', '.env'],
  },
  qwen: {
    agentType: 'qwen-code', api: 'chat', call: '/v1/chat/completions', key: ['authorization', `Bearer ${KEY}`], model: 'gpt-mock',
    cli: chat.executable('qwen'), acp: chat.executable('qwen'), userConfig: ['.qwen/settings.json', '.qwen/.env', '.env'],
  },
  copilot: {
    agentType: 'github-copilot', api: 'chat', call: '/v1/chat/completions', key: ['authorization', `Bearer ${KEY}`], model: 'gpt-mock',
    cli: chat.executable('copilot'), acp: chat.executable('copilot'), userConfig: ['.copilot/settings.json', '.copilot/mcp-config.json'],
  },
  opencode: {
    agentType: 'opencode', api: 'chat', call: '/v1/chat/completions', key: ['authorization', `Bearer ${KEY}`], model: 'gpt-mock',
    cli: chat.executable('opencode'), acp: chat.executable('opencode'),
    userConfig: ['.config/opencode/opencode.json', '.config/opencode/opencode.jsonc', '.config/opencode/config.json', '.opencode.json'],
  },
  // The install folder's `.bin` first on PATH: pi's ACP adapter runs `pi`
  // from there, Kimi Code its Node.js 22.
  pi: {
    agentType: 'pi', api: 'chat', call: '/v1/chat/completions', key: ['authorization', `Bearer ${KEY}`], model: 'gpt-mock',
    cli: chat.executable('pi'), acp: chat.acpExecutable('pi'), pathFirst: 'pi',
    userConfig: ['.pi/agent/settings.json', '.pi/agent/models.json', '.pi/agent/auth.json'],
  },
  kimi: {
    agentType: 'kimi-code', api: 'chat', call: '/v1/chat/completions', key: ['authorization', `Bearer ${KEY}`], model: 'gpt-mock',
    cli: chat.executable('kimi'), acp: chat.executable('kimi'), pathFirst: 'kimi',
    userConfig: ['.kimi-code/config.toml', '.kimi-code/tui.toml'],
  },
};

/** What a user's HOME holds for each agent in the "own settings" case: harmless settings the run must leave alone. */
const USER_SETTINGS = {
  claude: { '.claude/settings.json': '{"cleanupPeriodDays": 30}\n' },
  codex: { '.codex/config.toml': '# the user\'s own\nhide_agent_reasoning = true\n' },
  gemini: { '.gemini/settings.json': '{"ui": {"hideTips": true}}\n' },
  // Qwen Code adds its "$version" to a settings file without one, itself.
  qwen: { '.qwen/settings.json': '{"ui": {"hideTips": true}, "$version": 4}\n' },
  // Copilot rewrites its config.json itself ("managed automatically"); settings.json is the user's.
  copilot: { '.copilot/settings.json': '{"banner": "never"}\n' },
  opencode: { '.config/opencode/opencode.json': '{"$schema": "https://opencode.ai/config.json", "autoupdate": false}\n' },
  // pi's own provider and settings: the run's models.json replaces the
  // first for the run (in its own home), and merges over the second.
  pi: {
    '.pi/agent/settings.json': '{"theme": "light", "defaultProvider": "mine", "defaultModel": "mine-1"}\n',
    '.pi/agent/models.json': '{"providers": {"mine": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": "MINE_KEY", "models": [{"id": "mine-1"}]}}}\n',
  },
  kimi: { '.kimi-code/config.toml': '# the user\'s own\n[loop_control]\nmax_steps_per_turn = 100\n' },
};

/** Every file under `dir` (relative path → sha256), symbolic links by their target. */
function tree(dir, rel = '', out = {}) {
  let entries;
  try {
    entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const r = path.join(rel, e.name);
    const full = path.join(dir, r);
    if (e.isDirectory()) tree(dir, r, out);
    else if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(full)}`;
    else if (e.isFile()) out[r] = crypto.createHash('sha256').update(fs.readFileSync(full)).digest('hex');
  }
  return out;
}


async function startMock(agent, dir) {
  if (agent.api === 'chat') {
    const notes = path.join(dir, 'notes.txt');
    fs.writeFileSync(notes, 'The launch code is 4217.\n');
    const m = await chat.startMock('plain', dir, notes);
    return { baseUrl: `http://127.0.0.1:${m.port}/v1`, requests: () => chat.readRequests(m.log), stop: () => chat.stopMock(m) };
  }
  const m = await harness.startMock(agent.api, 'plain', dir);
  return { baseUrl: agent.api === 'openai' ? `${m.baseUrl}/v1` : m.baseUrl, requests: m.requests, stop: m.stop };
}

/** A folder with an empty HOME (or one holding `homeFiles`), a work folder, a mock; the environment names nothing of the agent's. */
async function setUp(name, homeFiles = {}) {
  const agent = AGENTS[name];
  fs.mkdirSync(BASE, { recursive: true });
  const dir = fs.mkdtempSync(path.join(BASE, `${name}-`));
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, work, tmp]) fs.mkdirSync(d, { recursive: true });
  for (const [rel, content] of Object.entries(homeFiles)) {
    fs.mkdirSync(path.dirname(path.join(home, rel)), { recursive: true });
    fs.writeFileSync(path.join(home, rel), content);
  }
  const mock = await startMock(agent, dir);
  const env = harness.offlineEnv(home, tmp);
  if (agent.pathFirst) env.PATH = chat.pathFor(agent.pathFirst, env.PATH);
  return { name, agent, dir, home, cwd: fs.realpathSync(work), env, mock, before: tree(home) };
}

function cleanUp(ctx) {
  ctx.mock.stop();
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

/** The endpoint, the reply, the request the mock saw, HOME afterwards. */
function checkRun(t, ctx, result) {
  assert.equal(result.success, true, JSON.stringify(result.error));
  assert.equal(result.reply.text, PLAIN_TEXT);
  // The turn's calls (not a side call beside them: the mock logs each call's kind).
  const calls = turnCalls(ctx.mock.requests()).filter((r) => r.url.includes(ctx.agent.call));
  assert.ok(calls.length > 0, `${ctx.name} called ${ctx.agent.call}: ${ctx.mock.requests().map((r) => `${r.kind} ${r.url}`).join(', ')}`);
  const [header, value] = ctx.agent.key;
  assert.ok(calls.some((c) => c.headers[header] === value), `the key arrives in ${header}: ${JSON.stringify(calls[0].headers)}`);
  assert.ok(calls.some((c) => c.headers[HEADER[0].toLowerCase()] === HEADER[1]), `the custom header arrives: ${JSON.stringify(calls[0].headers)}`);
  assert.deepEqual(runFolders(), [], 'the run folder is removed');
  const after = tree(ctx.home);
  for (const [file, hash] of Object.entries(ctx.before)) assert.equal(after[file], hash, `HOME/${file} is unchanged`);
  for (const file of ctx.agent.userConfig) {
    if (!(file in ctx.before)) assert.ok(!(file in after), `the run wrote no HOME/${file}`);
  }
  // The agent's own caches, logs and state, by folder.
  const made = [...new Set(Object.keys(after).filter((f) => !(f in ctx.before)).map((f) => f.split(path.sep).slice(0, 2).join('/')))];
  t.diagnostic(`made in HOME by the agent: ${made.join(', ') || 'nothing'}`);
}

function endpointOf(ctx, extra = {}) {
  return { baseUrl: ctx.mock.baseUrl, apiKey: KEY, model: ctx.agent.model, headers: { [HEADER[0]]: HEADER[1] }, ...extra };
}

function run(ctx, protocol) {
  return pkg.runAgent(ctx.agent.agentType, { prompt: 'Which UI framework should we use?' }, {
    protocol,
    cd: ctx.cwd,
    command: protocol === 'acp' ? ctx.agent.acp : ctx.agent.cli,
    env: ctx.env,
    endpoint: endpointOf(ctx),
    timeout: IDLE_S,
    maxDuration: IDLE_S + 30,
    maxRetries: 0,
  });
}

for (const name of Object.keys(AGENTS)) {
  describe(`endpoint: ${name}`, () => { // one at a time: each checks that no run folder is left
    test('runAgent over its CLI with an empty HOME', { timeout: TEST_TIMEOUT_MS }, (t) =>
      inFreshRun(() => setUp(name), cleanUp, async (ctx) => checkRun(t, ctx, await run(ctx, 'cli'))));

    test("runAgent over its CLI leaves the user's own settings as they were", { timeout: TEST_TIMEOUT_MS }, (t) =>
      inFreshRun(() => setUp(name, USER_SETTINGS[name]), cleanUp, async (ctx) => checkRun(t, ctx, await run(ctx, 'cli'))));

    if (AGENTS[name].acp) {
      test('runAgent over ACP with an empty HOME', { timeout: TEST_TIMEOUT_MS }, (t) =>
        inFreshRun(() => setUp(name), cleanUp, async (ctx) => checkRun(t, ctx, await run(ctx, 'acp'))));
    }
  });
}

/** The unprivileged user the non-root runs use: `nobody`, when this process may switch to it. */
const OTHER_USER = (() => {
  if (process.getuid?.() !== 0) return { skip: 'only root can start a process as another user: run the tests as root to check a run as a normal user' };
  try {
    const id = (flag) => Number(execFileSync('id', [flag, 'nobody']).toString().trim());
    return { uid: id('-u'), gid: id('-g'), skip: false };
  } catch (err) {
    return { skip: `no user "nobody" to run as: ${err.message}` };
  }
})();

/** Everything under `dir` (itself included) owned by `uid`:`gid`. */
function chownTree(dir, uid, gid) {
  fs.chownSync(dir, uid, gid);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) chownTree(full, uid, gid);
    else fs.lchownSync(full, uid, gid);
  }
}

/** `runs` in a Node process of the other user (./as_user.cjs); resolves its JSON. Bounded by `ms`. */
function runAsOtherUser(ctx, runs, ms) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'as_user.cjs'), JSON.stringify({ runs })], {
      uid: OTHER_USER.uid, gid: OTHER_USER.gid, cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim().split('\n').at(-1)));
      } catch {
        reject(new Error(`the other user's run printed no result (exit ${code}): ${out}${err}`));
      }
    });
  });
}

describe('endpoint: gemini as a user other than root', () => {
  for (const protocol of ['cli', 'acp']) {
    test(`runAgent over ${protocol === 'cli' ? 'its CLI' : 'ACP'} as "nobody", a fresh HOME of its own with its settings${protocol === 'cli' ? ', then resumes the session' : ''}`, { skip: OTHER_USER.skip, timeout: TEST_TIMEOUT_MS }, (t) =>
      inFreshRun(() => setUp('gemini', USER_SETTINGS.gemini), cleanUp, async (ctx) => {
        // Only the run's HOME, work and temp folders are the user's; the rest is root's.
        chownTree(ctx.dir, OTHER_USER.uid, OTHER_USER.gid);
        const options = {
          protocol, cd: ctx.cwd, command: protocol === 'acp' ? ctx.agent.acp : ctx.agent.cli,
          endpoint: endpointOf(ctx), timeout: 60, maxDuration: 120, maxRetries: 0,
        };
        const request = { prompt: 'Which UI framework should we use?' };
        const runs = [{ agentType: 'google-gemini', request, options }];
        // Over its CLI a second run resumes the first one's session (over
        // ACP Gemini CLI 0.61 cannot load a session after a restart).
        if (protocol === 'cli') runs.push({ agentType: 'google-gemini', request, options: { ...options, sessionId: '$previous' } });
        const seen = await runAsOtherUser(ctx, runs, 240_000);
        assert.equal(seen.thrown, undefined, seen.thrown);
        assert.equal(seen.uid, OTHER_USER.uid);
        for (const result of seen.results) checkRun(t, ctx, result);
        if (protocol === 'cli') {
          assert.ok(seen.results[0].sessionId, 'the first run names its session');
          assert.equal(seen.results[1].sessionId, seen.results[0].sessionId, 'the second run resumed it');
          // Its history stays in the user's own folder.
          const chats = Object.keys(tree(path.join(ctx.home, '.gemini', 'tmp'))).filter((f) => f.includes('chats'));
          assert.ok(chats.length > 0, 'the session is kept under HOME/.gemini/tmp');
        }
        const runsLeft = path.join(ctx.home, '.cache', 'agent-context', 'runs');
        assert.deepEqual(fs.existsSync(runsLeft) ? fs.readdirSync(runsLeft) : [], [], "the other user's run folder is removed");
      }));
  }
});

describe('endpoint: sessions and teams', () => {
  test('a session over ACP takes it for every turn, and its folder goes with it', { timeout: TEST_TIMEOUT_MS }, (t) =>
    inFreshRun(() => setUp('gemini'), cleanUp, async (ctx) => {
      const session = await pkg.openAgentSession('google-gemini', {
        cd: ctx.cwd, command: ctx.agent.acp, env: ctx.env, endpoint: endpointOf(ctx), timeout: IDLE_S, maxRetries: 0,
      });
      try {
        assert.equal(runFolders().length, 1, 'the folder lives while the session does');
        for (let i = 0; i < 2; i += 1) {
          const turn = await session.prompt('Which UI framework should we use?');
          assert.equal(turn.success, true, JSON.stringify(turn.error));
          assert.equal(turn.reply.text, PLAIN_TEXT);
        }
      } finally {
        await session.close();
      }
      checkRun(t, ctx, { success: true, reply: { text: PLAIN_TEXT } });
    }));

  test("a team passes it to its members' sessions", { timeout: TEST_TIMEOUT_MS }, (t) =>
    inFreshRun(() => setUp('claude'), cleanUp, async (ctx) => {
      const team = new pkg.AgentTeam({
        teamTask: 'Pick a UI framework.', cd: ctx.cwd, command: ctx.agent.acp, env: ctx.env, endpoint: endpointOf(ctx), timeout: IDLE_S, maxRetries: 0,
        members: [{ id: 'lead', agentType: 'claude-code' }],
      });
      try {
        team.post({ from: 'pat', content: 'Which UI framework should we use?' });
        const turn = await team.ask('lead');
        assert.equal(turn.success, true, JSON.stringify(turn.error));
        assert.equal(turn.reply.text.includes(PLAIN_TEXT), true, turn.reply.text);
      } finally {
        await team.close();
      }
      checkRun(t, ctx, { success: true, reply: { text: PLAIN_TEXT } });
    }));
});

describe('endpoint: bad input', () => {
  const base = { cd: harness.ROOT, command: '/nonexistent/agent', maxRetries: 0 };
  test('runAgent: invalid_params naming the field, over both protocols', async () => {
    const cases = [
      [{ baseUrl: 'localhost:8080' }, /^invalid parameters: options\.endpoint\.baseUrl must be an http or https URL/],
      [{ baseUrl: 8080 }, /^invalid parameters: options\.endpoint\.baseUrl must be a URL string, got a number/],
      [{ baseUrl: 'http://h', headers: { X: 1 } }, /^invalid parameters: options\.endpoint\.headers\.X must be a string, got a number/],
      [{ baseUrl: 'http://h', api: 'openai-chat' }, /options\.endpoint\.api is 'openai-chat', but Claude Code calls Anthropic Messages endpoints only \('anthropic-messages'\)/],
    ];
    for (const protocol of ['cli', 'acp']) {
      for (const [endpoint, says] of cases) {
        const result = await pkg.runAgent('claude-code', { prompt: 'hi' }, { ...base, protocol, endpoint });
        assert.equal(result.success, false);
        assert.equal(result.error.kind, 'invalid_params', JSON.stringify(result.error));
        assert.match(result.error.message, says);
      }
    }
    assert.deepEqual(runFolders(), []);
  });

  test('openAgentSession: INVALID_INPUT naming the field', async () => {
    await assert.rejects(
      pkg.openAgentSession('qwen-code', { ...base, endpoint: { baseUrl: 'http://h/v1', api: 'gemini' } }),
      (err) => err.code === 'INVALID_INPUT' && /options\.endpoint\.api is 'gemini', but Qwen Code calls OpenAI-compatible chat completions endpoints only/.test(err.message),
    );
    await assert.rejects(
      pkg.openAgentSession('opencode', { ...base, endpoint: { baseUrl: 'http://h/v1' } }),
      (err) => err.code === 'INVALID_INPUT' && /options\.endpoint\.model is required for opencode/.test(err.message),
    );
    assert.deepEqual(runFolders(), []);
  });

  test('an unknown key inside endpoint warns, naming the nearest known one', async () => {
    const warnings = [];
    const result = await pkg.runAgent('claude-code', { prompt: 'hi' }, {
      ...base, endpoint: { baseUrl: 'http://h', apikey: 'k' }, logger: { warn: (m) => warnings.push(m) },
    });
    assert.equal(result.error.kind, 'command_not_found');
    assert.deepEqual(warnings, ['[agent-context] options.endpoint has an unknown key "apikey" (did you mean "apiKey"?); it is ignored']);
  });
});
