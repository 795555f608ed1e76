// The `agent-context` command, spawned as a user runs it: stdout, stderr, exit status.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as pkg from 'agent-context';

/** A folder of the test's own, removed when the test ends. */
function tempDir(t) {
  const dir = mkdtempSync(join(tmpdir(), 'agent-context-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const BIN = fileURLToPath(new URL('../../bin/agent-context.js', import.meta.url));
const golden = (name) => readFileSync(new URL(`../golden/${name}`, import.meta.url), 'utf8');
const examples = JSON.parse(golden('worked-examples.json'));
const seedInput = examples[0].input;

function run(args, stdin = '') {
  const r = spawnSync(process.execPath, [BIN, ...args], { input: stdin, encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('--help for the command and each subcommand', () => {
  const main = run(['--help']);
  assert.equal(main.status, 0);
  assert.match(main.stdout, /^usage: agent-context <command>/);
  assert.match(main.stdout, /\n  gemini     run Gemini CLI as a tool/);
  assert.match(run(['mcp', '--help']).stdout, /claude mcp add gemini -- npx agent-context mcp/);
  for (const command of ['assemble', 'messages', 'parse', 'demo', 'gemini', 'mcp']) {
    const r = run([command, '--help']);
    assert.equal(r.status, 0, command);
    assert.match(r.stdout, new RegExp(`^usage: agent-context ${command}`), command);
    assert.equal(r.stderr, '');
  }
});

test('demo prints the prompt each agent type gets', () => {
  const r = run(['demo']);
  assert.equal(r.status, 0);
  for (const agent of ['claude-code', 'openai-codex', 'google-gemini', 'custom-agent']) {
    assert.match(r.stdout, new RegExp(`===== ${agent} \\(\\d+ of 786432 bytes\\) =====`));
  }
  assert.match(r.stdout, /--- systemFlag ---\nYou are Carol, a UI\/UX designer\./);
  // The fallback is what custom-agent is there to show: said as information, the library's warning quoted.
  assert.equal(
    r.stderr,
    'agent-context demo: note: "custom-agent" stands for any agent type without a layout of its own; it gets the plain-text prompt ' +
      '(assemble logs for it: [ContextManager] Unknown agentType "custom-agent", using PlainTextAssembler)\n',
  );
});

test('--version prints the package version', () => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
  for (const flag of ['--version', '-V']) {
    const r = run([flag]);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, `${version}\n`);
  }
});

test('assemble --system-flag-file writes Claude Code\'s system flag to a file', (t) => {
  const dir = tempDir(t);
  const flagFile = join(dir, 'system.txt');
  const r = run(['assemble', '--agent', 'claude-code', '--system-flag-file', flagFile], JSON.stringify(seedInput));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, `${golden('claude-full.prompt.txt')}\n`);
  assert.equal(r.stderr, '');
  assert.equal(readFileSync(flagFile, 'utf8'), golden('claude-full.systemFlag.txt'));
  // An agent type without a system flag: the file is written empty.
  assert.equal(run(['assemble', '--agent', 'openai-codex', '--system-flag-file', flagFile], JSON.stringify(seedInput)).status, 0);
  assert.equal(readFileSync(flagFile, 'utf8'), '');
  const unwritable = run(['assemble', '--agent', 'claude-code', '--system-flag-file', join(dir, 'no/such/dir/f')], JSON.stringify(seedInput));
  assert.equal(unwritable.status, 1);
  assert.match(unwritable.stderr, /^agent-context: cannot write .*no\/such\/dir\/f: ENOENT/);
  rmSync(dir, { recursive: true, force: true });
});

test('every bad option gets our own message and exit 2', () => {
  const cases = [
    [['assemble', '--agent', 'x', '--max-bytes', '-5'], /^agent-context: --max-bytes must be a number >= 0, got "-5"\n\nusage: agent-context assemble/],
    [['assemble', '--agent'], /^agent-context: --agent needs a value\n/],
    [['assemble', '--agent', 'x', '--json=yes'], /^agent-context: --json takes no value\n/],
    [['assemble', '--agent', 'x', 'stray'], /^agent-context: unexpected argument 'stray': assemble takes options only \(--help, --agent, /],
    [['parse', '--agnet', 'x'], /^agent-context: Unknown option '--agnet' for parse; its options are --help, --agent, --json, --verbose, --input\n/],
    [['--frobnicate'], /^agent-context: unknown option "--frobnicate"; the commands are assemble, messages, parse, demo, gemini, run, mcp, acp, serve\n/],
    [['gemini', '--cd', '/tmp', '--timeout', '-1'], /^agent-context: --timeout must be a whole number, got "-1"\n/],
    [['acp', '--agent', 'aider'], /^agent-context: --agent names no agent: aider; the agents are claude-code, /],
    [['acp', '--fallback', '{nope'], /^agent-context: --fallback must be an agent type or JSON: /],
    [['serve', '--port', '70000'], /^agent-context: --port must be a port number \(0 to 65535\), got 70000\n/],
  ];
  for (const [args, stderr] of cases) {
    const r = run(args, '{}');
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, stderr, args.join(' '));
    assert.doesNotMatch(r.stderr, /ambiguous|ERR_PARSE_ARGS|Did you forget/, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
});

test('assemble reads stdin or a file and prints the prompt', (t) => {
  const fromStdin = run(['assemble', '--agent', 'google-gemini'], JSON.stringify(seedInput));
  assert.equal(fromStdin.status, 0);
  assert.equal(fromStdin.stdout, `${golden('gemini-7.1-full.txt')}\n`);
  assert.equal(fromStdin.stderr, '');
  const file = join(tempDir(t), 'input.json');
  writeFileSync(file, JSON.stringify(seedInput));
  assert.equal(run(['assemble', '--agent', 'google-gemini', '--input', file]).stdout, fromStdin.stdout);
  const claude = run(['assemble', '--agent', 'claude-code', '--input', file]);
  assert.equal(claude.stdout, `${golden('claude-full.prompt.txt')}\n`);
  assert.match(claude.stderr, /systemFlag \(75 bytes\) not printed; use --json/);
  const json = JSON.parse(run(['assemble', '--agent', 'claude-code', '--json', '--input', file]).stdout);
  assert.deepEqual(json, { prompt: golden('claude-full.prompt.txt'), systemFlag: golden('claude-full.systemFlag.txt') });
});

test('assemble --max-bytes and --report', () => {
  const r = run(['assemble', '--agent', 'openai-codex', '--max-bytes', '250', '--report', '--json'], JSON.stringify(seedInput));
  assert.equal(r.status, 0, r.stderr);
  const { output, report } = JSON.parse(r.stdout);
  assert.ok(Buffer.byteLength(output.prompt) <= 250);
  assert.equal(report.maxBytes, 250);
  assert.equal(report.messagesDropped, 1);
  const text = run(['assemble', '--agent', 'openai-codex', '--max-bytes', '250', '--report'], JSON.stringify(seedInput));
  assert.equal(text.stdout, `${output.prompt}\n`);
  assert.match(text.stderr, /^report:\n  maxBytes: 250\n/);
});

test('bad input exits 2 with the error code on stderr', () => {
  const cases = [
    [['assemble', '--agent', 'x'], '{"contextMessages":[{"from":1,"content":"c"}]}', /^agent-context: INVALID_INPUT: contextMessages\[0\]\.from must be a string, got a number\n$/],
    [['assemble', '--agent', 'x'], 'not json', /^agent-context: the input is not valid JSON: /],
    [['assemble'], '{}', /^agent-context: assemble needs --agent TYPE\n\nusage: agent-context assemble/],
    [['assemble', '--agent', 'x', '--max-bytes', 'lots'], '{}', /--max-bytes must be a number >= 0, got "lots"/],
    [['assemble', '--agent', 'x', '--input', '/nonexistent/input.json'], '', /^agent-context: cannot read \/nonexistent\/input\.json: ENOENT/],
    [['assemble', '--agent', 'claude-code', '--max-bytes', '10'], JSON.stringify(seedInput), /^agent-context: BUDGET_EXCEEDED: maxBytes is 10 but the output needs at least \d+ bytes/],
    [['messages'], '{"mode":"debug","messages":[]}', /^agent-context: INVALID_INPUT: mode must be 'chat', 'agent' or 'run', got "debug"\n$/],
    [['frobnicate'], '', /^agent-context: unknown command "frobnicate"/],
    [['assemble', '--agent', 'x', '--bogus'], '{}', /Unknown option '--bogus'/],
    [['gemini', '--cd', '/tmp', '--timeout', 'soon'], 'Hi', /^agent-context: --timeout must be a whole number, got "soon"\n\nusage: agent-context gemini/],
    [['gemini', '--prompt', 'a', '--input', '-'], '', /give the prompt with --prompt or --input, not both/],
    [['mcp', '--verbose'], '', /Unknown option '--verbose'/],
  ];
  for (const [args, stdin, stderr] of cases) {
    const r = run(args, stdin);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, stderr, args.join(' '));
    assert.equal(r.stdout, '', args.join(' '));
  }
});

test('gemini prints the envelope: invalid parameters exit 2, a failed run exits 1', (t) => {
  const dir = tempDir(t);
  const bad = run(['gemini', '--cd', join(dir, 'missing'), '--prompt', 'Hi']);
  assert.equal(bad.status, 2);
  const invalid = JSON.parse(bad.stdout);
  assert.equal(invalid.error_kind, 'invalid_params');
  assert.equal(invalid.error_detail.message, `cd does not exist: ${join(dir, 'missing')}`);
  assert.equal(bad.stderr, `agent-context: gemini failed (invalid_params): invalid parameters: cd does not exist: ${join(dir, 'missing')}\n`);
  const zero = JSON.parse(run(['gemini', '--cd', dir, '--max-retries', '11'], 'Hi').stdout);
  assert.equal(zero.error_detail.message, 'max_retries must be a whole number from 0 to 10, got 11');

  // The prompt from stdin; a gemini that is not there.
  const missing = run(['gemini', '--cd', dir, '--gemini', join(dir, 'gemini'), '--max-retries', '2', '--timeout', '9'], 'Hi');
  assert.equal(missing.status, 1);
  const envelope = JSON.parse(missing.stdout);
  assert.deepEqual([envelope.error_kind, envelope.error_detail.retries, envelope.error_detail.idle_timeout_s], ['command_not_found', 0, 9]);
  assert.match(missing.stderr, /^agent-context: gemini failed \(command_not_found\): Gemini CLI was not found: /);
  rmSync(dir, { recursive: true, force: true });
});

test('messages prints the ContextBuildResult', () => {
  const options = { mode: 'agent', agent: { id: 'c', name: 'Carol', role: 'Designer' }, messages: [{ role: 'user', content: 'hi' }] };
  const r = run(['messages'], JSON.stringify(options));
  assert.equal(r.status, 0, r.stderr);
  const result = JSON.parse(r.stdout);
  assert.equal(result.messages.length, 2);
  assert.match(result.messages[0].content, /^# Mode: AGENT\n/);
  assert.deepEqual(result.messages[1], { role: 'user', content: 'hi' });
  assert.equal(result.metadata.outputCount, 2);
});

test('a slow input shows progress on stderr only after a second', async () => {
  const quick = run(['assemble', '--agent', 'x'], '{"contextMessages":[],"currentMessage":"hi"}');
  assert.doesNotMatch(quick.stderr, /reading/);
  // Standard input that stays open until the command says it waits for it
  // (at most 20 s): the JSON comes only then, however slowly Node started.
  const child = spawn(process.execPath, [BIN, 'assemble', '--agent', 'x'], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  const started = Date.now();
  const said = new Promise((resolve) => {
    const timer = setTimeout(resolve, 20_000);
    child.stderr.on('data', (c) => {
      stderr += c;
      if (stderr.includes('reading standard input')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  await said;
  const waited = Date.now() - started;
  child.stdin.end('{"contextMessages":[],"currentMessage":"hi"}');
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(status, 0, stderr);
  assert.match(stderr, /agent-context: reading standard input…\n/);
  assert.ok(waited >= 1000, `the progress line came after ${waited} ms`);
  assert.equal(stdout, 'hi\n');
});

test('parse prints the reply of a recorded run, and fails with the run', () => {
  const fixture = (name) => readFileSync(new URL(`../fixtures/cli/${name}`, import.meta.url), 'utf8');
  const ok = run(['parse', '--agent', 'google-gemini'], fixture('gemini-plain.jsonl'));
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, `${pkg.parseAgentOutput('google-gemini', fixture('gemini-plain.jsonl')).text}\n`);
  const json = run(['parse', '--agent', 'openai-codex', '--json'], fixture('codex-tool.jsonl'));
  assert.deepEqual(JSON.parse(json.stdout), JSON.parse(JSON.stringify(pkg.parseAgentOutput('openai-codex', fixture('codex-tool.jsonl')))));
  const failed = run(['parse', '--agent', 'claude-code'], fixture('claude-error.jsonl'));
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /^agent-context: the run ended with status error: /);
  const usage = run(['parse'], '');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /parse needs --agent TYPE/);
});
