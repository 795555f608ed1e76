// Runs the real agent CLIs offline: a mock API process on 127.0.0.1, a fresh
// HOME per run holding only a fake key and the base-URL setting, the CLI
// spawned from a `buildCliInvocation` result, and everything stopped by PID.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { readJsonLines, turnCalls } = require('./requests.cjs');

const ROOT = path.join(__dirname, '..', '..');
// The CLIs have their own manifest (tests/agents/package.json), installed by
// `npm test` (scripts/setup.sh --agents) and nothing else.
const AGENTS = path.join(ROOT, 'tests', 'agents', 'node_modules');
const BIN = path.join(AGENTS, '.bin');

/** Each CLI: its agent type, its npm package, the API its mock speaks. */
const CLIS = {
  claude: { agentType: 'claude-code', bin: 'claude', pkg: '@anthropic-ai/claude-code', api: 'anthropic' },
  codex: { agentType: 'openai-codex', bin: 'codex', pkg: '@openai/codex', api: 'openai' },
  gemini: { agentType: 'google-gemini', bin: 'gemini', pkg: '@google/gemini-cli', api: 'gemini' },
};

/** A model name each mock accepts; passing one also keeps Gemini CLI from routing. */
const MODELS = { claude: 'claude-mock-1', codex: 'gpt-mock', gemini: 'gemini-2.5-flash' };

const MOCK_START_MS = 15_000;
const FAKE_KEYS = {
  claude: 'sk-ant-mock-not-a-real-key',
  codex: 'sk-mock-not-a-real-key',
  gemini: 'mock-not-a-real-key',
};

function executable(cli) {
  return path.join(BIN, CLIS[cli].bin);
}

/** The installed version of a CLI's npm package. */
function installedVersion(cli) {
  const manifest = path.join(AGENTS, ...CLIS[cli].pkg.split('/'), 'package.json');
  return JSON.parse(fs.readFileSync(manifest, 'utf8')).version;
}

/**
 * Starts `mock_server.cjs`; resolves once it prints its port.
 * `maxRequests`: how many it answers before it stops (its default, 60,
 * unless a benchmark needs more turns of one agent).
 */
function startMock(api, scenario, dir, { maxRequests } = {}) {
  const logPath = path.join(dir, `${api}-requests.jsonl`);
  fs.writeFileSync(logPath, '');
  const args = [path.join(__dirname, 'mock_server.cjs'), api, scenario, logPath, ...(maxRequests ? [String(maxRequests)] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stopPid(child.pid);
      reject(new Error(`mock ${api} did not start within ${MOCK_START_MS} ms`));
    }, MOCK_START_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock ${api} exited with ${code} before listening`));
    });
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const { port } = JSON.parse(line);
      resolve({
        port,
        pid: child.pid,
        baseUrl: `http://127.0.0.1:${port}`,
        requests: () => readRequests(logPath),
        /** The calls of the agent's turns, without the side calls beside them. */
        turns: () => turnCalls(readRequests(logPath)),
        stop: () => stopPid(child.pid),
      });
    });
  });
}

/** The mock's request log, up to its last complete line (requests.cjs). */
function readRequests(logPath) {
  return readJsonLines(logPath);
}

/** Sends SIGTERM to one process we started, by its PID; gone already is fine. */
function stopPid(pid, signal = 'SIGTERM') {
  try {
    process.kill(pid, signal);
  } catch (err) {
    if (err.code !== 'ESRCH') throw err;
  }
}

/** Where anything but loopback goes: a port nothing listens on. */
const DEAD_PROXY = 'http://127.0.0.1:9';

/**
 * opencode cannot fetch its model catalogue offline and parses the copy
 * built into it instead, at every start: ~3 s of CPU of the ~8 a run costs
 * here. The tests' runs declare their provider and model whole (an
 * endpoint, or a provider of the test's own), so they give it an empty
 * catalogue, and the live step starts opencode dozens of times for less.
 * tests/cli/endpoint.test.cjs runs it as a user does, without these.
 */
const OPENCODE_EMPTY_CATALOGUE = {
  OPENCODE_MODELS_PATH: path.join(__dirname, 'mocks', 'opencode-empty-catalogue.json'),
  OPENCODE_DISABLE_MODELS_FETCH: '1',
};

/**
 * An environment naming nothing of any agent's: PATH, HOME, TMPDIR, the
 * locale, and a dead proxy for anything but loopback (both spellings:
 * Cline's runtime reads the exceptions from `no_proxy` only).
 */
function offlineEnv(home, tmp) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    HTTP_PROXY: DEAD_PROXY,
    HTTPS_PROXY: DEAD_PROXY,
    http_proxy: DEAD_PROXY,
    https_proxy: DEAD_PROXY,
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
  };
}

/** offlineEnv, and opencode's empty model catalogue (above). */
function testEnv(home, tmp) {
  return { ...offlineEnv(home, tmp), ...OPENCODE_EMPTY_CATALOGUE };
}

/**
 * A fresh sandbox for one CLI run: `home/` (HOME, with the CLI's settings),
 * `work/` (the working directory, with the notes file the tool scenario
 * reads) and `tmp/` (TMPDIR). Returns the environment to run the CLI with:
 * nothing of the caller's but PATH, and a dead proxy for anything that is
 * not loopback, so a CLI can reach no host but the mock. `geminiSettings`
 * adds to Gemini CLI's settings.json.
 */
function sandbox(cli, mock, dir, { geminiSettings = {} } = {}) {
  const home = path.join(dir, 'home');
  const work = path.join(dir, 'work');
  const tmp = path.join(dir, 'tmp');
  for (const d of [home, work, tmp]) fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(work, 'notes.txt'), require('./mocks/common.cjs').NOTES_TEXT);

  const env = { ...testEnv(home, tmp), NO_COLOR: '1', ALL_PROXY: DEAD_PROXY, all_proxy: DEAD_PROXY };
  if (cli === 'claude') {
    Object.assign(env, {
      ANTHROPIC_API_KEY: FAKE_KEYS.claude,
      ANTHROPIC_BASE_URL: mock.baseUrl,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
    });
  } else if (cli === 'codex') {
    // A custom provider is the only way to point Codex at another base URL
    // (it ignores OPENAI_BASE_URL); few retries keep the error run short.
    const codexHome = path.join(home, '.codex');
    fs.mkdirSync(codexHome, { recursive: true });
    fs.writeFileSync(
      path.join(codexHome, 'config.toml'),
      [
        'model_provider = "mock"',
        '[model_providers.mock]',
        'name = "mock"',
        `base_url = "${mock.baseUrl}/v1"`,
        'env_key = "OPENAI_API_KEY"',
        'wire_api = "responses"',
        'request_max_retries = 0',
        'stream_max_retries = 1',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    Object.assign(env, { OPENAI_API_KEY: FAKE_KEYS.codex, CODEX_HOME: codexHome });
  } else if (cli === 'gemini') {
    // GOOGLE_GEMINI_BASE_URL alone makes Gemini CLI pick its "gateway" auth,
    // which headless mode rejects: the API-key auth is chosen in settings.
    const geminiDir = path.join(home, '.gemini');
    fs.mkdirSync(geminiDir, { recursive: true });
    fs.writeFileSync(
      path.join(geminiDir, 'settings.json'),
      JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        ...geminiSettings,
      }),
    );
    Object.assign(env, { GEMINI_API_KEY: FAKE_KEYS.gemini, GOOGLE_GEMINI_BASE_URL: mock.baseUrl });
  }
  return { env, cwd: work, home };
}

/**
 * Spawns `invocation` (`{ command, args, stdin, files }`) in its own process
 * group, writes `stdin` and closes it, and collects the output, handing each
 * stdout chunk to `onStdout` as it comes. After `timeoutMs` the whole group
 * is killed. Resolves `{ code, signal, stdout, stderr, timedOut }`.
 */
function run(invocation, { cwd, env, timeoutMs, onStdout = () => {} }) {
  for (const file of invocation.files) fs.writeFileSync(file.path, file.content);
  return new Promise((resolve, reject) => {
    const child = spawn(invocation.command, invocation.args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout = [];
    const stderr = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      stopPid(-child.pid, 'SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (c) => {
      stdout.push(c);
      onStdout(c);
    });
    child.stderr.on('data', (c) => stderr.push(c));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Anything the CLI left running in its group goes with it.
      stopPid(-child.pid, 'SIGKILL');
      resolve({
        code,
        signal,
        timedOut,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.on('error', () => {}); // a CLI that exits early closes its stdin
    child.stdin.end(invocation.stdin);
  });
}

function tempDir(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `agent-context-${label}-`));
}

module.exports = { CLIS, MODELS, FAKE_KEYS, ROOT, executable, installedVersion, startMock, sandbox, offlineEnv, testEnv, OPENCODE_EMPTY_CATALOGUE, run, tempDir, readRequests };
