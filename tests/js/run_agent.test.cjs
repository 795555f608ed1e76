// runAgent's process layer on stub agents (node scripts playing a CLI: a
// stub is only for testing our own spawn, stdin, timers, kill and events;
// the real CLIs are in tests/cli/run_agent.test.cjs): what JS rejects, an
// onEvent that throws, an abort before the start, maxDuration across
// retries, a file that cannot be executed, stdin always closed.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-run-agent-js-'));
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A stub agent: `body` is the node code run after stdin ended (`input` holds it). */
function stub(name, body) {
  const file = path.join(dir, name);
  fs.writeFileSync(
    file,
    `#!${process.execPath}\nlet input = '';\nprocess.stdin.on('data', (c) => (input += c));\nprocess.stdin.on('end', () => {\n${body}\n});\n`,
  );
  fs.chmodSync(file, 0o755);
  return file;
}

const SID = '0b7f5f5e-1111-4222-8333-944445555666';
const line = (o) => `process.stdout.write(${JSON.stringify(`${JSON.stringify(o)}\n`)});`;
const INIT = line({ type: 'system', subtype: 'init', session_id: SID });
const TEXT = line({ type: 'assistant', message: { content: [{ type: 'text', text: 'Hello' }] }, session_id: SID });
const RESULT = line({ type: 'result', subtype: 'success', is_error: false, result: 'Hello', session_id: SID });

/** PIDs of live processes whose command line mentions `needle`. */
function processesRunning(needle) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

test('stdin is written whole and closed; the prompt of an AssemblerInput is the agent layout', async () => {
  const echo = stub('echo.cjs', `${INIT}\nprocess.stdout.write(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: input }] }, session_id: '${SID}' }) + '\\n');\n${RESULT}`);
  const input = { ...pkg.sampleInput(), currentMessage: 'Which colours?' };
  const result = await pkg.runAgent('claude-code', input, { cd: dir, command: echo });
  assert.equal(result.success, true, JSON.stringify(result.error));
  assert.equal(result.reply.text, pkg.assemble('claude-code', input).prompt);
  assert.equal(result.sessionId, SID);
});

test('what only JS holds is checked and rejects; the rest is an invalid_params run', async () => {
  const ok = stub('ok.cjs', `${INIT}${TEXT}${RESULT}`);
  const reject = (options, pattern) => assert.rejects(pkg.runAgent('claude-code', { prompt: 'x' }, options), (err) => err instanceof pkg.AgentContextError && err.name === 'AgentContextError' && err.code === 'INVALID_INPUT' && pattern.test(err.message));
  await reject(undefined, /options must be an object, got undefined/);
  await reject({ cd: dir, signal: {} }, /options.signal must be an AbortSignal/);
  await reject({ cd: dir, onEvent: 'no' }, /options.onEvent must be a function/);
  await reject({ cd: dir, env: [] }, /options.env must be an object/);
  await reject({ cd: dir, command: '' }, /options.command must be a non-empty string/);
  // Over ACP too (the run driver checks onPermission).
  await reject({ cd: dir, protocol: 'acp', onPermission: 5 }, /options.onPermission must be a function/);
  for (const [options, says] of [
    [{ command: ok }, /options.cd must be a string/],
    [{ cd: dir, command: ok, timeout: -1 }, /options.timeout must be more than 0/],
    [{ cd: dir, command: ok, maxRetries: 99 }, /options.maxRetries must be a whole number from 0 to 10/],
    [{ cd: path.join(dir, 'ok.cjs'), command: ok }, /options.cd is not a directory/],
  ]) {
    const result = await pkg.runAgent('claude-code', { prompt: 'x' }, options);
    assert.equal(result.error.kind, 'invalid_params');
    assert.match(result.error.message, says);
    assert.equal(result.attempts, 0);
  }
  const bad = await pkg.runAgent('claude-code', { teamTask: 5 }, { cd: dir, command: ok });
  assert.equal(bad.error.kind, 'invalid_params');
  assert.match(bad.error.message, /^invalid parameters: request: /);
});

test('an onEvent that throws stops the run, kills the agent, and rejects with the error', async () => {
  const forever = stub('forever-events.cjs', `${INIT}\nsetInterval(() => { ${TEXT} }, 20);`);
  const boom = new Error('host failed');
  await assert.rejects(
    pkg.runAgent('claude-code', { prompt: 'x' }, { cd: dir, command: forever, onEvent: (e) => { if (e.type === 'text') throw boom; } }),
    (err) => err === boom,
  );
  assert.deepEqual(processesRunning('forever-events.cjs'), []);
});

test('an abort before the start spawns nothing', async () => {
  const ok = stub('never.cjs', `${INIT}${TEXT}${RESULT}`);
  const result = await pkg.runAgent('claude-code', { prompt: 'x' }, { cd: dir, command: ok, signal: AbortSignal.abort() });
  assert.equal(result.error.kind, 'aborted');
  assert.equal(result.attempts, 0);
});

test('maxDuration bounds the call across retries: timeout, the tree killed (a grandchild too)', async () => {
  // The stub starts a grandchild that would outlive it, then trickles output.
  const trickle = stub(
    'trickle.cjs',
    `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'grandchild-of-trickle'], { stdio: 'ignore' });\n${INIT}\nsetInterval(() => { ${TEXT} }, 100);`,
  );
  const started = Date.now();
  // The idle limit above maxDuration: a stub slow to start on a loaded
  // machine is ended by maxDuration too, not by the idle limit.
  const result = await pkg.runAgent('claude-code', { prompt: 'x' }, { cd: dir, command: trickle, timeout: 5, maxDuration: 2, maxRetries: 3 });
  assert.equal(result.error.kind, 'timeout');
  assert.equal(result.attempts, 1, 'no time left for a retry');
  assert.ok(Date.now() - started < 4000);
  assert.deepEqual(processesRunning('grandchild-of-trickle'), []);
  assert.deepEqual(processesRunning('trickle.cjs'), []);
});

/** Node code that starts a process in a session of its own (`setsid`), out of reach of its group's signal. */
const startStray = (name) => `require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ${JSON.stringify(name)}], { stdio: 'ignore', detached: true }).unref();`;

test('what the agent starts in a session of its own goes with the run, whether it is killed or exits', { skip: process.platform !== 'linux' && 'the environment of other processes is read from /proc' }, async () => {
  const killed = stub('stray-killed.cjs', `${startStray('stray-of-killed')}\n${INIT}\nsetInterval(() => { ${TEXT} }, 100);`);
  const timedOut = await pkg.runAgent('claude-code', { prompt: 'x' }, { cd: dir, command: killed, timeout: 5, maxDuration: 1, maxRetries: 0 });
  assert.equal(timedOut.error.kind, 'timeout');
  assert.deepEqual(await gone('stray-of-killed'), [], 'killed with the tree');
  const finished = stub('stray-finished.cjs', `${startStray('stray-of-finished')}\n${INIT}${TEXT}${RESULT}`);
  const done = await pkg.runAgent('claude-code', { prompt: 'x' }, { cd: dir, command: finished });
  assert.equal(done.success, true, JSON.stringify(done.error));
  assert.deepEqual(await gone('stray-of-finished'), [], 'swept after the agent exited');
});

test('a file that is not executable: spawn_failed, not retried', async () => {
  const plain = path.join(dir, 'not-executable');
  fs.writeFileSync(plain, 'text');
  const result = await pkg.runAgent('openai-codex', { prompt: 'x' }, { cd: dir, command: plain, maxRetries: 2 });
  assert.equal(result.error.kind, 'spawn_failed');
  assert.match(result.error.message, /EACCES/);
  assert.equal(result.attempts, 1);
});

test('an idle agent is retried, then reported as idle_timeout', async () => {
  const silent = stub('silent.cjs', 'setInterval(() => {}, 1000);');
  const result = await pkg.runAgent('google-gemini', { prompt: 'x' }, { cd: dir, command: silent, timeout: 0.3, maxRetries: 1 });
  assert.equal(result.error.kind, 'idle_timeout');
  assert.equal(result.attempts, 2);
  assert.equal(result.error.retryable, true);
  assert.deepEqual(processesRunning('silent.cjs'), []);
});

/** A host process running `stubFile` through runAgent; `setup` is host code run first. Resolves once the stub has started. */
function startHost(stubFile, marker, setup = '') {
  const { spawn } = require('node:child_process');
  const host = spawn(process.execPath, ['-e', `${setup}\nrequire(${JSON.stringify(require.resolve('agent-context'))}).runAgent('claude-code', { prompt: 'x' }, { cd: ${JSON.stringify(dir)}, command: ${JSON.stringify(stubFile)}, timeout: 60 });`], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => host.on('exit', (code, signal) => resolve({ code, signal })));
  const started = (async () => {
    for (let i = 0; i < 100 && processesRunning(marker).length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.ok(processesRunning(marker).length > 0, `${marker} started`);
  })();
  return { host, exited, started };
}

async function gone(needle) {
  for (let i = 0; i < 20 && processesRunning(needle).length > 0; i += 1) await new Promise((r) => setTimeout(r, 100));
  return processesRunning(needle);
}

test('a host ended by a signal it does not handle takes the agent tree with it, and still ends by that signal', { skip: process.platform === 'win32' && 'POSIX signals' }, async () => {
  const file = stub('signalled.cjs', "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'grandchild-of-signalled'], { stdio: 'ignore' });\nsetInterval(() => {}, 1000);");
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
    const { host, exited, started } = startHost(file, 'grandchild-of-signalled');
    await started;
    host.kill(signal);
    assert.deepEqual(await exited, { code: null, signal });
    assert.deepEqual(await gone('grandchild-of-signalled'), [], `${signal}: the grandchild is gone`);
    assert.deepEqual(await gone('signalled.cjs'), [], `${signal}: the agent is gone`);
  }
});

test('a host ended by a signal takes what its agent started in a session of its own', { skip: process.platform !== 'linux' && 'the environment of other processes is read from /proc' }, async () => {
  const file = stub('stray-signalled.cjs', `${startStray('stray-of-signalled')}\nsetInterval(() => {}, 1000);`);
  const { host, exited, started } = startHost(file, 'stray-of-signalled');
  await started;
  host.kill('SIGTERM');
  assert.deepEqual(await exited, { code: null, signal: 'SIGTERM' });
  assert.deepEqual(await gone('stray-of-signalled'), []);
});

test('a host that handles the signal itself decides: the agent runs on until the host exits', { skip: process.platform === 'win32' && 'POSIX signals' }, async () => {
  const file = stub('handled.cjs', "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'grandchild-of-handled'], { stdio: 'ignore' });\nsetInterval(() => {}, 1000);");
  const setup = "process.on('SIGTERM', () => { process.stdout.write('handled\\n'); setTimeout(() => process.exit(7), 800); });";
  const { host, exited, started } = startHost(file, 'grandchild-of-handled', setup);
  await started;
  let out = '';
  host.stdout.on('data', (c) => (out += c));
  host.kill('SIGTERM');
  for (let i = 0; i < 40 && !out.includes('handled'); i += 1) await new Promise((r) => setTimeout(r, 25));
  assert.equal(out, 'handled\n');
  assert.ok(processesRunning('handled.cjs').length > 0, 'still running while the host decides');
  assert.deepEqual(await exited, { code: 7, signal: null });
  assert.deepEqual(await gone('handled.cjs'), [], 'the exit hook killed the agent');
  assert.deepEqual(await gone('grandchild-of-handled'), [], 'and its tree');
});

test("a run's own folder goes with a host ended by a signal it does not handle, and a host killed outright leaves one that the next run sweeps", { skip: process.platform === 'win32' && 'POSIX signals' }, async () => {
  const { spawn } = require('node:child_process');
  const runtime = fs.mkdtempSync(path.join(dir, 'runtime-'));
  const runs = path.join(runtime, 'agent-context');
  const folders = () => (fs.existsSync(runs) ? fs.readdirSync(runs) : []);
  const file = stub('folder-keeper.cjs', 'setInterval(() => {}, 1000);');
  // Gemini CLI's run writes its settings file into the run's folder.
  const host = () => {
    const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(require.resolve('agent-context'))}).runAgent('google-gemini', { prompt: 'x' }, { cd: ${JSON.stringify(dir)}, command: ${JSON.stringify(file)}, timeout: 60 });`], {
      stdio: 'ignore',
      env: { ...process.env, XDG_RUNTIME_DIR: runtime },
    });
    const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    return { child, exited };
  };
  // Until the run has made a folder other than `before`, and its agent runs.
  const running = async (before = []) => {
    const made = () => folders().filter((f) => !before.includes(f));
    for (let i = 0; i < 100 && (made().length === 0 || processesRunning('folder-keeper.cjs').length === 0); i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.equal(made().length, 1, 'the run made its folder');
  };
  const first = host();
  await running();
  first.child.kill('SIGTERM');
  assert.deepEqual(await first.exited, { code: null, signal: 'SIGTERM' });
  assert.deepEqual(folders(), [], 'removed with the host');
  const second = host();
  await running();
  second.child.kill('SIGKILL');
  await second.exited;
  const left = folders();
  assert.equal(left.length, 1, 'a host killed outright cannot remove it');
  for (const pid of processesRunning('folder-keeper.cjs')) process.kill(pid, 'SIGKILL');
  assert.deepEqual(await gone('folder-keeper.cjs'), []);
  const third = host();
  await running(left);
  assert.ok(!folders().includes(left[0]), 'swept when the next run starts');
  third.child.kill('SIGTERM');
  await third.exited;
  assert.deepEqual(await gone('folder-keeper.cjs'), []);
});
