// Runs Qwen Code, GitHub Copilot CLI, opencode, pi and Kimi Code offline against the OpenAI
// Chat Completions mock (openai_chat_server.cjs): a mock process per run on
// 127.0.0.1, a fresh HOME per run (each CLI's provider settings pointing at
// the mock, a fake key), the CLI spawned in its own process group from an
// invocation (`{ command, args, stdin }`), killed with its group after
// RUN_LIMIT_MS, and the mock stopped by its PID.
//
// The CLIs, pinned in openai_chat_agents.json, come from
// AGENT_CLI_ROOT/<pkg>@<version>/node_modules/.bin (default
// ~/.cache/agent-context/agents) or, when pinned in the project, node_modules/.bin.
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
// The mock's request log is read as the CLI mocks' is: up to its last complete line.
const { readRequests, OPENCODE_EMPTY_CATALOGUE } = require('./harness.cjs');

const ROOT = path.join(__dirname, '..', '..');
const MODEL = 'gpt-mock';
const FAKE_KEY = 'sk-mock-not-a-real-key';
const NOTES_TEXT = 'The launch code is 4217.\n';
const RUN_LIMIT_MS = 90_000;
const MOCK_START_MS = 15_000;

/**
 * Each CLI: agent type, npm package, version tested (exact, from the
 * manifest), executable (and its path in a package that declares no bin),
 * the packages installed beside it, its ACP executable when another
 * (`acpBin`), whether its folder's `.bin` goes first on its PATH, the
 * platforms it installs on.
 */
const ALL_AGENTS = Object.fromEntries(
  Object.entries(require('./openai_chat_agents.json').agents).map(([cli, a]) => [
    cli,
    { agentType: a.agentType, pkg: a.package, version: a.version, bin: a.bin, binPath: a.binPath, acpOnly: a.acpOnly === true, with: a.with ?? {}, acpBin: a.acpBin, pathFirst: a.pathFirst === true, platforms: a.platforms, ownSuite: a.ownSuite === true },
  ]),
);
/** The ones whose command line is driven (every agent but those driven over ACP only): recorded, and run by the CLI-mode tests. */
const AGENTS = Object.fromEntries(Object.entries(ALL_AGENTS).filter(([, a]) => !a.acpOnly));
/** The ones the shared chat suites run (openai_chat_live, run_agent_openai_chat): not those with a suite of their own. */
const SUITE_AGENTS = Object.fromEntries(Object.entries(AGENTS).filter(([, a]) => !a.ownSuite));

/** Copilot's first run unpacks ~235 MB into $XDG_CACHE_HOME/copilot: shared by every run. */
const SHARED_CACHE = process.env.AGENT_CLI_CACHE || path.join(os.homedir(), '.cache');

function cliRoot() {
  return process.env.AGENT_CLI_ROOT || path.join(os.homedir(), '.cache', 'agent-context', 'agents');
}

/** The node_modules folder it runs from: the project's pinned one, else the one installed aside. */
function modulesOf(cli) {
  const { pkg, version } = ALL_AGENTS[cli];
  const pinned = path.join(ROOT, 'node_modules', ...pkg.split('/'), 'package.json');
  if (fs.existsSync(pinned) && JSON.parse(fs.readFileSync(pinned, 'utf8')).version === version) {
    return path.join(ROOT, 'node_modules');
  }
  return path.join(cliRoot(), `${pkg.replace('/', '+')}@${version}`, 'node_modules');
}

/** The executable. */
function executable(cli) {
  const { pkg, bin, binPath } = ALL_AGENTS[cli];
  return binPath ? path.join(modulesOf(cli), ...pkg.split('/'), binPath) : path.join(modulesOf(cli), '.bin', bin);
}

/** The executable that speaks ACP (pi's adapter; the CLI itself for the others). */
function acpExecutable(cli) {
  const { acpBin } = ALL_AGENTS[cli];
  return acpBin ? path.join(modulesOf(cli), '.bin', acpBin) : executable(cli);
}

/** The `.bin` folder of its install, which goes first on its PATH (`pathFirst`): pi's adapter finds `pi` there, Kimi Code its Node.js 22. */
function binDir(cli) {
  return path.join(modulesOf(cli), '.bin');
}

/** `PATH` for `cli`: its `.bin` first when it says so, then `base`. */
function pathFor(cli, base = process.env.PATH) {
  return ALL_AGENTS[cli]?.pathFirst ? `${binDir(cli)}${path.delimiter}${base}` : base;
}

function available(cli) {
  const { platforms } = ALL_AGENTS[cli];
  if (platforms && !platforms.includes(`${process.platform}-${process.arch}`)) return false;
  return fs.existsSync(executable(cli)) && fs.existsSync(acpExecutable(cli));
}

/** Starts the mock; resolves `{ child, port, log }`. */
function startMock(scenario, dir, notesPath) {
  const log = path.join(dir, 'requests.jsonl');
  fs.writeFileSync(log, '');
  const child = spawn(process.execPath, [path.join(__dirname, 'openai_chat_server.cjs'), scenario, log, notesPath], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('mock did not start'));
    }, MOCK_START_MS);
    readline.createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      resolve({ child, port: JSON.parse(line).port, log });
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock exited with ${code}`));
    });
  });
}

function stopMock(mock) {
  if (mock.child.exitCode === null) mock.child.kill('SIGTERM');
}

/** A fresh HOME for `cli`: its settings and environment, pointing at `port`. */
function sandbox(cli, home, port) {
  const base = `http://127.0.0.1:${port}/v1`;
  const env = {
    PATH: pathFor(cli),
    HOME: home,
    USER: 'mock',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    CI: '1',
    // Anything but loopback goes to a dead proxy. Both spellings: Cline's
    // runtime (Bun) takes the proxy from HTTP_PROXY but the exceptions
    // from no_proxy only.
    HTTP_PROXY: 'http://127.0.0.1:9',
    HTTPS_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
    http_proxy: 'http://127.0.0.1:9',
    https_proxy: 'http://127.0.0.1:9',
    no_proxy: '127.0.0.1,localhost',
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  if (cli === 'qwen') {
    fs.mkdirSync(path.join(home, '.qwen'), { recursive: true });
    const settings = {
      security: { auth: { selectedType: 'openai' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      // The SDK's own retries off, so an HTTP 500 test stays short.
      model: { generationConfig: { maxRetries: 0 } },
    };
    fs.writeFileSync(path.join(home, '.qwen', 'settings.json'), JSON.stringify(settings));
    Object.assign(env, { OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: base, OPENAI_MODEL: MODEL });
  } else if (cli === 'copilot') {
    Object.assign(env, {
      XDG_CACHE_HOME: SHARED_CACHE,
      COPILOT_HOME: path.join(home, '.copilot'),
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: base,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: FAKE_KEY,
      COPILOT_PROVIDER_WIRE_API: 'completions',
      COPILOT_MODEL: MODEL,
    });
  } else if (cli === 'opencode') {
    const config = {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: `mock/${MODEL}`,
      small_model: `mock/${MODEL}`,
      provider: {
        mock: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Mock',
          options: { baseURL: base, apiKey: FAKE_KEY },
          models: { [MODEL]: { name: 'GPT Mock', limit: { context: 128000, output: 4096 } } },
        },
      },
    };
    Object.assign(env, {
      OPENCODE_CONFIG_CONTENT: JSON.stringify(config),
      ...OPENCODE_EMPTY_CATALOGUE,
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    });
  } else if (cli === 'pi') {
    // What the run's home holds with an endpoint: a provider in models.json,
    // made the default, its startup notice and its SDK's retries off.
    const dir = path.join(home, '.pi', 'agent');
    fs.mkdirSync(dir, { recursive: true });
    const models = { providers: { mock: { baseUrl: base, api: 'openai-completions', apiKey: FAKE_KEY, models: [{ id: MODEL, input: ['text', 'image'] }] } } };
    fs.writeFileSync(path.join(dir, 'models.json'), JSON.stringify(models));
    const settings = { defaultProvider: 'mock', defaultModel: MODEL, quietStartup: true, retry: { maxRetries: 0, provider: { maxRetries: 0 } } };
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
    env.PI_OFFLINE = '1';
  } else if (cli === 'kimi') {
    // Its model from the environment, as an endpoint gives it; one attempt per step.
    Object.assign(env, { KIMI_MODEL_NAME: MODEL, KIMI_MODEL_API_KEY: FAKE_KEY, KIMI_MODEL_BASE_URL: base, KIMI_MODEL_PROVIDER_TYPE: 'openai', KIMI_LOOP_MAX_ATTEMPTS_PER_STEP: '1' });
  }
  return env;
}

/** Spawns `invocation` in `cwd` with `env`; resolves `{ code, signal, stdout, stderr, timedOut, ms }`. */
function spawnCli(invocation, { cwd, env, limitMs = RUN_LIMIT_MS }) {
  const started = Date.now();
  const child = spawn(invocation.command, invocation.args, { cwd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const out = [];
  const err = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.on('data', (c) => err.push(c));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {}
  }, limitMs);
  child.stdin.on('error', () => {});
  child.stdin.end(invocation.stdin);
  return new Promise((resolve) => {
    child.on('error', (e) => err.push(Buffer.from(String(e))));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Nothing the CLI started outlives the run.
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      resolve({ code, signal, chunks: out, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), timedOut, ms: Date.now() - started });
    });
  });
}

/**
 * One run: `makeInvocation(ctx)` builds `{ command, args, stdin }` given
 * `{ cli, executable, home, cwd, port }`. `reuse` (an earlier run) keeps its
 * HOME and folder (resume); `command` runs another release than the pinned
 * one, and `env` changes its environment (a `null` removes a variable): the
 * recorder's, for older releases. Resolves the run; `cleanUp(run)` removes
 * its files.
 */
async function runAgentCli(cli, scenario, makeInvocation, { reuse = null, limitMs, command, env: changes = {} } = {}) {
  const dir = reuse ? reuse.dir : fs.mkdtempSync(path.join(os.tmpdir(), `ac-${cli}-`));
  const { home, cwd, notesPath } = workspace(dir);
  const runDir = fs.mkdtempSync(path.join(dir, 'run-'));
  const mock = await startMock(scenario, runDir, notesPath);
  try {
    const env = sandbox(cli, home, mock.port);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) delete env[name];
      else env[name] = value;
    }
    const ctx = { cli, executable: command ?? executable(cli), home, cwd, port: mock.port, runDir };
    const invocation = makeInvocation(ctx);
    for (const f of invocation.files ?? []) fs.writeFileSync(f.path, f.content);
    const result = await spawnCli(invocation, { cwd, env, limitMs });
    return { cli, scenario, dir, cwd, runDir, invocation, result, requests: readRequests(mock.log), notesPath };
  } finally {
    stopMock(mock);
  }
}

function cleanUp(run) {
  fs.rmSync(run.dir, { recursive: true, force: true });
}

/** In `dir`: a HOME (`home`) and a working folder (`work`) holding notes.txt. */
function workspace(dir) {
  const home = path.join(dir, 'home');
  const cwd = path.join(dir, 'work');
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(cwd, { recursive: true });
  const notesPath = path.join(cwd, 'notes.txt');
  fs.writeFileSync(notesPath, NOTES_TEXT);
  return { home, cwd, notesPath };
}

/**
 * A new folder under `parent` with a workspace, a mock playing `scenario`
 * and `cli`'s sandboxed environment: what a runAgent test runs in.
 * `endFreshRun` stops the mock and removes the folder.
 */
async function freshRun(cli, scenario, parent) {
  fs.mkdirSync(parent, { recursive: true });
  const dir = fs.mkdtempSync(path.join(parent, `${cli}-${scenario}-`));
  const { home, cwd, notesPath } = workspace(dir);
  const mock = await startMock(scenario, dir, notesPath);
  return { cli, dir, home, cwd: fs.realpathSync(cwd), notesPath, mock, env: sandbox(cli, home, mock.port) };
}

function endFreshRun(ctx) {
  stopMock(ctx.mock);
  fs.rmSync(ctx.dir, { recursive: true, force: true });
}

module.exports = { AGENTS, SUITE_AGENTS, ALL_AGENTS, MODEL, FAKE_KEY, NOTES_TEXT, executable, acpExecutable, binDir, pathFor, available, runAgentCli, cleanUp, freshRun, endFreshRun, ROOT, startMock, stopMock, readRequests, sandbox };
