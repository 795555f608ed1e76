// The platform layer from the built package (Node, Linux): command-line
// limits for all three systems, real npm cmd-shim shims read, the search
// for an agent's executable on this machine's file system (PATH, the login
// shell's PATH, install folders), and the process layer spawning, feeding
// and killing a stub agent's whole process group.
import test from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pkg from 'agent-context';

const require = createRequire(import.meta.url);
const cmdShim = require('cmd-shim');
const { spawnAgent } = require('../../pkg/node/spawn-agent.cjs');
const STUB = fileURLToPath(new URL('../windows/stub-agent.js', import.meta.url));

const temp = () => mkdtempSync(join(tmpdir(), 'ac-platform-'));

test('checkCommandLine counts as each system does and names the limit', () => {
  const big = 'x'.repeat(40_000);
  const linux = pkg.checkCommandLine({ platform: 'linux', program: 'claude', args: ['-p', big] });
  assert.equal(linux.fits, true);
  assert.equal(linux.limit, 'linux-argv-env');
  const win = pkg.checkCommandLine({ platform: 'win32', program: 'claude', args: ['-p', big] });
  assert.deepEqual(
    [win.fits, win.limit, win.used, win.max, win.unit],
    [false, 'windows-command-line', 40_011, 32_767, 'UTF-16 units'],
  );
  assert.match(win.message, /over Windows' limit on a command line .* of 32767 UTF-16 units/);
  const cmd = pkg.checkCommandLine({ platform: 'win32', program: 'x.cmd', args: ['y'.repeat(9000)], throughCmd: true });
  assert.deepEqual([cmd.fits, cmd.limit, cmd.max], [false, 'cmd-exe', 8191]);
  const arg = pkg.checkCommandLine({ platform: 'linux', program: 'claude', args: ['z'.repeat(131_072)] });
  assert.deepEqual([arg.fits, arg.limit, arg.what, arg.used], [false, 'linux-argument', 'args[0]', 131_073]);
  const mac = pkg.checkCommandLine({ platform: 'darwin', program: 'claude', args: ['z'.repeat(131_072)], env: { BIG: 'e'.repeat(1_000_000) } });
  assert.deepEqual([mac.fits, mac.limit], [false, 'darwin-arg-max']);
  assert.throws(() => pkg.checkCommandLine({ platform: 'aix', program: 'x', args: [] }), (e) => e.code === 'INVALID_INPUT' && /request\.platform must be 'linux', 'darwin' or 'win32'/.test(e.message));
  assert.equal(pkg.windowsCommandLine('node.exe', ['a b', 'say "hi"', '']), 'node.exe "a b" "say \\"hi\\"" ""');
});

test('buildCliInvocation routes Claude\'s system prompt by the platform it is given', () => {
  const out = { prompt: 'hi', systemFlag: 's'.repeat(40_000) };
  const file = join(tmpdir(), 'sys.md');
  const win = pkg.buildCliInvocation('claude-code', out, { platform: 'win32', systemPromptFile: file });
  assert.equal(win.args[4], `--append-system-prompt-file=${file}`);
  const linux = pkg.buildCliInvocation('claude-code', out, { platform: 'linux', systemPromptFile: file });
  assert.equal(linux.args[4].length, 40_000 + '--append-system-prompt='.length);
  // Default: this machine's platform (Linux here).
  assert.deepEqual(pkg.buildCliInvocation('claude-code', out, { systemPromptFile: file }).args, linux.args);
  assert.throws(
    () => pkg.buildCliInvocation('google-gemini', { prompt: 'hi' }, { platform: 'win32', extraArgs: ['x'.repeat(33_000)] }),
    (e) => e.code === 'INVALID_INPUT' && /does not fit on win32: command line is 33036 UTF-16 units/.test(e.message),
  );
  assert.throws(() => pkg.buildCliInvocation('google-gemini', { prompt: 'hi' }, { platform: 'sunos' }), /options\.platform must be/);
  // macOS counts the environment given.
  const mac = pkg.buildCliInvocation('claude-code', { prompt: 'hi', systemFlag: 's'.repeat(900_000) }, { platform: 'darwin', systemPromptFile: file, env: { BIG: 'e'.repeat(200_000) } });
  assert.equal(mac.files.length, 1);
});

test('shims written by npm\'s cmd-shim are read into node + script or the target itself', async () => {
  const dir = temp();
  try {
    mkdirSync(join(dir, 'pkg'));
    writeFileSync(join(dir, 'pkg', 'cli.js'), '#!/usr/bin/env node\nconsole.log(1)\n');
    writeFileSync(join(dir, 'pkg', 'flags.js'), '#!/usr/bin/env -S FOO=bar node --no-warnings\n');
    writeFileSync(join(dir, 'pkg', 'tool.exe'), 'MZ');
    await cmdShim(join(dir, 'pkg', 'cli.js'), join(dir, 'bin', 'claude'));
    await cmdShim(join(dir, 'pkg', 'flags.js'), join(dir, 'bin', 'flags'));
    await cmdShim(join(dir, 'pkg', 'tool.exe'), join(dir, 'bin', 'tool'));
    const read = (name) => pkg.parseCmdShim(`C:\\Program Files\\x\\bin\\${name}.cmd`, readFileSync(join(dir, 'bin', `${name}.cmd`), 'utf8'));
    assert.deepEqual(read('claude'), {
      program: { kind: 'interpreter', local: 'C:\\Program Files\\x\\bin\\node.exe', name: 'node' },
      args: ['C:\\Program Files\\x\\pkg\\cli.js'],
      env: {},
    });
    assert.deepEqual(read('flags'), {
      program: { kind: 'interpreter', local: 'C:\\Program Files\\x\\bin\\node.exe', name: 'node' },
      args: ['--no-warnings', 'C:\\Program Files\\x\\pkg\\flags.js'],
      env: { FOO: 'bar' },
    });
    assert.deepEqual(read('tool'), { program: { kind: 'path', path: 'C:\\Program Files\\x\\pkg\\tool.exe' }, args: [], env: {} });
    assert.throws(() => pkg.parseCmdShim('C:\\x.cmd', '@echo off\r\necho hi\r\n'), (e) => e.code === 'INVALID_INPUT' && /only run through cmd\.exe/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('resolveAgentCommand looks on PATH, then the login shell\'s PATH, then install folders', async () => {
  const dir = temp();
  try {
    const home = join(dir, 'home');
    const hidden = join(dir, 'only-in-login-shell');
    mkdirSync(home);
    mkdirSync(hidden);
    copyFileSync(STUB, join(hidden, 'claude'));
    chmodSync(join(hidden, 'claude'), 0o755);
    writeFileSync(join(home, '.bash_profile'), `echo noise from the profile\nexport PATH="$PATH:${hidden}"\n`);
    const env = { PATH: '/usr/bin:/bin', HOME: home, SHELL: '/bin/bash' };
    const found = await pkg.resolveAgentCommand('claude-code', { env, platform: 'linux' });
    assert.equal(found.found, true, found.message);
    assert.equal(found.path, join(hidden, 'claude'));
    assert.equal(found.source, 'login shell PATH');
    // node is on this PATH (/usr/bin), but the child's PATH may lack the
    // folder node is in: the script runs directly only when node is on PATH.
    assert.ok(['direct', 'interpreter'].includes(found.via));

    const local = join(home, '.local', 'bin');
    mkdirSync(local, { recursive: true });
    copyFileSync(STUB, join(local, 'codex'));
    chmodSync(join(local, 'codex'), 0o755);
    const codex = await pkg.resolveAgentCommand('openai-codex', { env, platform: 'linux' });
    assert.deepEqual([codex.found, codex.path, codex.source], [true, join(local, 'codex'), '~/.local/bin']);

    const missing = await pkg.resolveAgentCommand('google-gemini', { env, platform: 'linux' });
    assert.equal(missing.found, false);
    assert.equal(missing.kind, 'command_not_found');
    assert.match(missing.message, /^gemini was not found; looked at:\n {2}\/usr\/bin\/gemini \(PATH\)\n {2}\/bin\/gemini \(PATH\)\n/);
    assert.ok(missing.message.includes(`${hidden}/gemini (login shell PATH)`));
    assert.ok(missing.message.includes(`${home}/.nvm/current/bin/gemini (nvm)`));
    assert.equal(missing.searched.length, missing.message.split('\n').length - 1);
    // Not executable: not taken.
    chmodSync(join(local, 'codex'), 0o644);
    assert.equal((await pkg.resolveAgentCommand('openai-codex', { env, platform: 'linux' })).found, false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a node script runs directly when node is on PATH, else with the node found, else with Electron', async () => {
  const dir = temp();
  try {
    const bin = join(dir, 'bin');
    const home = join(dir, 'home');
    mkdirSync(bin);
    mkdirSync(home);
    copyFileSync(STUB, join(bin, 'claude'));
    chmodSync(join(bin, 'claude'), 0o755);
    const base = { HOME: home, SHELL: '/bin/false' };
    const direct = await pkg.resolveAgentCommand('claude-code', { env: { ...base, PATH: `${bin}:/usr/bin` }, platform: 'linux' });
    assert.deepEqual([direct.via, direct.file, direct.args], ['direct', join(bin, 'claude'), []]);

    // No node on PATH (an app started from a desktop launcher): Electron's
    // executable stands in, told to behave as node.
    const noNode = { ...base, PATH: bin };
    const electron = await pkg.resolveAgentCommand('claude-code', { env: noNode, platform: 'linux', electronExecPath: process.execPath });
    if (!existsSync('/usr/local/bin/node')) {
      assert.deepEqual([electron.via, electron.file, electron.args, electron.env], ['electron', process.execPath, [join(bin, 'claude')], { ELECTRON_RUN_AS_NODE: '1' }]);
      let out = '';
      const run = spawnAgent({ file: electron.file, args: [...electron.args, 'hello'], cwd: dir, env: { ...noNode, ...electron.env }, stdin: 'p' }, { onStdout: (c) => (out += c) });
      assert.equal((await run.exited).exitCode, 0);
      assert.deepEqual(JSON.parse(JSON.parse(out.trim().split('\n')[2]).result).argv, ['hello']);
      const none = await pkg.resolveAgentCommand('claude-code', { env: noNode, platform: 'linux' });
      assert.equal(none.found, false);
      assert.match(none.message, /claude needs node to run, and node was not found/);
    }

    // node in an install folder but not on PATH: node + script.
    mkdirSync(join(home, '.local', 'bin'), { recursive: true });
    symlinkSync(process.execPath, join(home, '.local', 'bin', 'node'));
    const viaNode = await pkg.resolveAgentCommand('claude-code', { env: noNode, platform: 'linux' });
    assert.deepEqual([viaNode.via, viaNode.file, viaNode.args], ['interpreter', join(home, '.local', 'bin', 'node'), [join(bin, 'claude')]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('spawnAgent reads what the agent adds to a watched file while it runs, from where it stood, emptying it past keepBytes', async () => {
  const dir = temp();
  try {
    const file = join(dir, 'telemetry.json');
    writeFileSync(file, 'left by an earlier process\n');
    // Appends three records 100 ms apart (the second 3000 bytes long), the last just before it exits.
    const script = `const fs = require('node:fs');
      const put = (s) => fs.appendFileSync(${JSON.stringify(file)}, s);
      put('one\\n');
      setTimeout(() => put('x'.repeat(2999) + '\\n'), 100);
      setTimeout(() => put('three\\n'), 200);`;
    let seen = '';
    let stderr = '';
    const run = spawnAgent(
      { file: process.execPath, args: ['-e', script], cwd: dir, env: process.env, watch: { path: file, everyMs: 20, keepBytes: 1000 } },
      { onWatched: (chunk) => (seen += chunk), onStderr: (c) => (stderr += c) },
    );
    const done = await run.exited;
    assert.deepEqual([done.exitCode, stderr], [0, '']);
    // Everything it wrote, once, the last line read after it exited; nothing from before.
    assert.equal(seen, `one\n${'x'.repeat(2999)}\nthree\n`);
    // Past keepBytes the file was emptied: what is left is what came after.
    assert.ok(readFileSync(file, 'utf8').length < 3000, 'emptied once read past keepBytes');
    // No file at all: nothing is read, nothing fails.
    let none = '';
    const quiet = await spawnAgent(
      { file: process.execPath, args: ['-e', ''], cwd: dir, env: process.env, watch: { path: join(dir, 'absent.json'), everyMs: 20, keepBytes: 1000 } },
      { onWatched: (chunk) => (none += chunk) },
    ).exited;
    assert.deepEqual([quiet.exitCode, none], [0, '']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('spawnAgent writes stdin, delivers output, and kills the whole process group', async () => {
  const dir = temp();
  try {
    const awkward = ['with space', 'say "hi"', '%PATH%', '^&!|<>', 'über 🎉', ''];
    let stdout = '';
    const run = spawnAgent(
      { file: process.execPath, args: [STUB, ...awkward], cwd: dir, env: process.env, stdin: 'the prompt\nline two ✓' },
      { onStdout: (c) => (stdout += c) },
    );
    const done = await run.exited;
    assert.deepEqual([done.exitCode, done.signal, done.error], [0, null, null]);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.type), ['system', 'assistant', 'result']);
    assert.deepEqual(JSON.parse(lines[2].result), { argv: awkward, stdin: 'the prompt\nline two ✓', platform: 'linux' });

    const pidFile = join(dir, 'pids.json');
    const sleeper = spawnAgent({ file: process.execPath, args: [STUB, '--sleep', pidFile, '--grandchild'], cwd: dir, env: process.env, stdin: '' });
    for (let i = 0; i < 100 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
    const pids = JSON.parse(readFileSync(pidFile, 'utf8'));
    assert.equal(pids.length, 2);
    assert.deepEqual(await sleeper.kill(), { by: 'signalGroup', tried: [] });
    const killed = await sleeper.exited;
    assert.equal(killed.signal, 'SIGKILL');
    const alive = (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 40 && pids.some(alive); i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(pids.filter(alive), [], 'the agent and its grandchild are gone');

    // Killed with its parent, the grandchild is a zombie of whatever adopts
    // it until that reaps it (seconds, for some inits): the tree is gone.
    const orphaning = spawnAgent({ file: process.execPath, args: [STUB, '--sleep', join(dir, 'pids2.json'), '--grandchild'], cwd: dir, env: process.env, stdin: '' });
    for (let i = 0; i < 100 && !existsSync(join(dir, 'pids2.json')); i++) await new Promise((r) => setTimeout(r, 50));
    await orphaning.kill();
    await orphaning.exited;
    const exitedAt = Date.now();
    await orphaning.treeGone();
    assert.ok(Date.now() - exitedAt < 500, `the tree counted gone ${Date.now() - exitedAt} ms after the agent exited`);

    const neverStarted = spawnAgent({ file: join(dir, 'nope'), args: [], cwd: dir, env: process.env });
    const missing = await neverStarted.exited;
    assert.equal(missing.error.code, 'ENOENT');
    // No process, no tree to wait for (not the host's own group).
    const failedAt = Date.now();
    await neverStarted.treeGone();
    assert.ok(Date.now() - failedAt < 500, `a process never started counted gone after ${Date.now() - failedAt} ms`);
    writeFileSync(join(dir, 'plain.txt'), 'x');
    const denied = await spawnAgent({ file: join(dir, 'plain.txt'), args: [], cwd: dir, env: process.env }).exited;
    assert.equal(denied.error.code, 'EACCES');
    const tooBig = await spawnAgent({ file: process.execPath, args: ['x'.repeat(200_000)], cwd: dir, env: process.env }).exited;
    assert.equal(tooBig.error.code, 'E2BIG');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
