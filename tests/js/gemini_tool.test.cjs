// The Gemini tool's parts that need no Gemini CLI, through the package name:
// parameter problems as invalid_params envelopes, `cd` checks, the host's
// options, an abort before the start, a command that is not there, the
// engineering context and the prompt template, the tool definition, that
// the tool's own WebAssembly module loads only when a run needs it, and one
// taxonomy: stubs replaying Gemini CLI's own output get the same kind from
// runGeminiTool and runAgent. The real CLI runs in
// tests/cli/gemini_tool.test.cjs.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const pkg = require('agent-context');

const made = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-context-tool-'));
  made.push(dir);
  return dir;
};
test.after(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});
/** A command that does not exist, so nothing can be spawned by mistake. */
const NOWHERE = { command: '/nonexistent/agent-context-test/gemini' };

async function invalid(params, message) {
  const envelope = await pkg.runGeminiTool(params, NOWHERE);
  assert.equal(envelope.success, false, JSON.stringify(envelope));
  assert.equal(envelope.error_kind, 'invalid_params', JSON.stringify(envelope));
  assert.equal(envelope.error_detail.message, message);
  assert.equal(envelope.error, `invalid parameters: ${message}`);
  assert.deepEqual(
    { exit_code: envelope.error_detail.exit_code, last_lines: envelope.error_detail.last_lines, retries: envelope.error_detail.retries },
    { exit_code: null, last_lines: [], retries: 0 },
  );
  return envelope;
}

test('bad parameters resolve an invalid_params envelope naming the parameter', async () => {
  const cd = tmp();
  await invalid(undefined, 'params must be an object, got undefined');
  await invalid('Review it', 'params must be an object, got a string');
  await invalid({ cd }, 'PROMPT must be a string, got undefined');
  await invalid({ PROMPT: '  ', cd }, 'PROMPT must not be empty: it is the whole task Gemini gets');
  await invalid({ PROMPT: 'x' }, 'cd must be a string, got undefined');
  await invalid({ PROMPT: 'x', cd, sandbox: 'none' }, "sandbox must be one of 'read-only', 'workspace-write', 'danger-full-access', got \"none\"");
  await invalid({ PROMPT: 'x', cd, yolo: 'false' }, 'yolo must be a boolean, got a string');
  await invalid({ PROMPT: 'x', cd, max_retries: 11 }, 'max_retries must be a whole number from 0 to 10, got 11');
  await invalid({ PROMPT: 'x', cd, SESSION_ID: '--last' }, 'SESSION_ID must not start with \'-\', got "--last"');
  const typo = await invalid({ PROMPT: 'x', cd, Timeout: 5, timeout: 7 }, 'unknown parameter "Timeout" (did you mean timeout?); the parameters are PROMPT, cd, sandbox, yolo, SESSION_ID, model, return_all_messages, return_metrics, timeout, max_duration, max_retries, log_metrics');
  // The limits that could be read are reported as given.
  assert.deepEqual([typo.error_detail.idle_timeout_s, typo.error_detail.max_duration_s], [7, 1800]);
  const throwing = { PROMPT: 'x', get cd() { throw new Error('no cd for you'); } };
  await invalid(throwing, 'params could not be read: no cd for you');
  const cyclic = { PROMPT: 'x', cd };
  cyclic.self = cyclic;
  const envelope = await pkg.runGeminiTool(cyclic, NOWHERE);
  assert.equal(envelope.error_kind, 'invalid_params');
  assert.match(envelope.error_detail.message, /^params could not be read: /);
});

test('cd must be an existing directory', async () => {
  const dir = tmp();
  const file = path.join(dir, 'notes.txt');
  fs.writeFileSync(file, 'x');
  await invalid({ PROMPT: 'x', cd: path.join(dir, 'missing') }, `cd does not exist: ${path.join(dir, 'missing')}`);
  await invalid({ PROMPT: 'x', cd: file }, `cd is not a directory: ${file}`);
  await invalid({ PROMPT: 'x', cd: path.join(file, 'below') }, `cd does not exist: ${path.join(file, 'below')}`);
});

test('every bad value of every parameter is an envelope, never a rejection', async () => {
  const { badValues } = await import('../matrix/matrix.mjs');
  const cd = tmp();
  const names = Object.keys(pkg.geminiToolDefinition().inputSchema.properties);
  let n = 0;
  for (const name of names) {
    for (const [label, value, remove] of badValues()) {
      const params = { PROMPT: 'Review it', cd, timeout: 5, max_duration: 5, max_retries: 0 };
      if (remove) delete params[name];
      else params[name] = value;
      const envelope = await pkg.runGeminiTool(params, NOWHERE);
      assert.equal(typeof envelope.success, 'boolean', `${name} = ${label}`);
      // With a valid value the call gets as far as the missing command.
      assert.ok(['invalid_params', 'command_not_found'].includes(envelope.error_kind), `${name} = ${label}: ${envelope.error_kind}`);
      n += 1;
    }
  }
  assert.ok(n > 200);
});

test("the host's options are checked: a bad one rejects with AgentContextError", async () => {
  const cd = tmp();
  const cases = [
    ['nope', 'options must be an object, got a string'],
    [{ signal: {} }, 'options.signal must be an AbortSignal, got an object'],
    [{ command: '' }, 'options.command must be a non-empty string, got a string'],
    [{ command: 7 }, 'options.command must be a non-empty string, got a number'],
    [{ env: ['PATH=/bin'] }, 'options.env must be an object, got an array'],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(pkg.runGeminiTool({ PROMPT: 'x', cd }, options), (err) => {
      assert.ok(err instanceof pkg.AgentContextError, 'the runtime class');
      assert.equal(err.name, 'AgentContextError');
      assert.equal(err.code, 'INVALID_INPUT');
      assert.equal(err.message, message);
      return true;
    });
  }
});

test('an aborted signal ends the call before anything is spawned', async () => {
  const controller = new AbortController();
  controller.abort();
  const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: tmp() }, { ...NOWHERE, signal: controller.signal });
  assert.equal(envelope.error_kind, 'aborted');
  assert.equal(envelope.error, 'the call was aborted by the caller');
  assert.equal(envelope.error_detail.retries, 0);
});

test('a command that is not there: command_not_found, named, not retried', async () => {
  const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: tmp(), max_retries: 5 }, NOWHERE);
  assert.equal(envelope.error_kind, 'command_not_found');
  assert.match(envelope.error, /\/nonexistent\/agent-context-test\/gemini does not exist/);
  assert.equal(envelope.error_detail.message, `spawn ${NOWHERE.command} ENOENT`);
  assert.equal(envelope.error_detail.retries, 0);
  // The variable is read from the child's environment when no command is given.
  const viaEnv = await pkg.runGeminiTool({ PROMPT: 'x', cd: tmp() }, { env: { PATH: '/nonexistent', AGENT_CONTEXT_GEMINI_BIN: '/nowhere/gemini' } });
  assert.equal(viaEnv.error_detail.message, 'spawn /nowhere/gemini ENOENT');
});

test('a name found nowhere: command_not_found whose error lists every place searched', async () => {
  const home = tmp();
  const env = { PATH: '/nonexistent/agent-context-a:/nonexistent/agent-context-b', HOME: home };
  const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: tmp(), max_retries: 2 }, { command: 'gemini', env });
  assert.equal(envelope.error_kind, 'command_not_found', JSON.stringify(envelope));
  assert.equal(envelope.error_detail.message, 'spawn gemini ENOENT');
  assert.equal(envelope.error_detail.retries, 0);
  assert.match(envelope.error, /^Gemini CLI was not found: `gemini` is not on PATH .*\. gemini was not found; looked at:\n/);
  // The same places resolveAgentCommand reports.
  const resolved = await pkg.resolveAgentCommand('google-gemini', { env });
  assert.equal(resolved.found, false);
  assert.ok(resolved.searched.length >= 2);
  for (const place of resolved.searched) assert.ok(envelope.error.includes(`\n  ${place.path} (${place.source})`), place.path);
  assert.ok(envelope.error.includes('/nonexistent/agent-context-a/gemini'));
  assert.ok(envelope.error.includes(path.join(home, '.local', 'bin', 'gemini')));
});

test('readEngineeringContext reads the seed\'s files that exist, in order', () => {
  const cd = tmp();
  assert.deepEqual(pkg.readEngineeringContext(cd), []);
  fs.mkdirSync(path.join(cd, 'ai', 'contracts'), { recursive: true });
  fs.writeFileSync(path.join(cd, 'ai', 'PROJECT_CONTEXT.md'), 'Node 20, two cores.\n');
  fs.writeFileSync(path.join(cd, 'ai', 'contracts', 'current.md'), '# Contract\nOnly the parser.\n');
  const files = pkg.readEngineeringContext(cd);
  assert.deepEqual(files, [
    { path: 'ai/contracts/current.md', content: '# Contract\nOnly the parser.\n' },
    { path: 'ai/PROJECT_CONTEXT.md', content: 'Node 20, two cores.\n' },
  ]);
  const block = pkg.formatEngineeringContext(files);
  assert.match(block, /^【工程上下文】（调用方提供的工程约束/);
  assert.ok(block.endsWith('\n--- ai/contracts/current.md ---\n# Contract\nOnly the parser.\n\n--- ai/PROJECT_CONTEXT.md ---\nNode 20, two cores.'));
  assert.equal(pkg.formatEngineeringContext([]), '');
  assert.equal(pkg.formatEngineeringContext(null), '');

  fs.mkdirSync(path.join(cd, 'ai', 'engineering_codex.md'));
  assert.throws(() => pkg.readEngineeringContext(cd), { name: 'AgentContextError', code: 'INVALID_INPUT', message: `ai/engineering_codex.md under ${cd} cannot be read: EISDIR` });
  assert.throws(() => pkg.readEngineeringContext(42), { code: 'INVALID_INPUT', message: 'cd must be a non-empty string, got a number' });
});

test('composeGeminiToolPrompt fills the seed template', () => {
  const prompt = pkg.composeGeminiToolPrompt({
    taskType: 'consult',
    background: 'agent-context: a Rust library compiled to WebAssembly',
    tasks: ['Which retry schedule fits a CLI tool?', 'What should never be retried?'],
    expectedOutput: 'A short recommendation',
    engineeringContext: 'Keep the public API unchanged.',
  });
  assert.equal(
    prompt,
    [
      '请提供专业意见 / 执行任务：',
      '',
      pkg.formatEngineeringContext('Keep the public API unchanged.'),
      '',
      '**任务类型**：咨询',
      '**背景信息**：agent-context: a Rust library compiled to WebAssembly',
      '',
      '**具体问题 / 任务**：',
      '1. Which retry schedule fits a CLI tool?',
      '2. What should never be retried?',
      '',
      '**期望输出**：',
      '- A short recommendation',
      '',
      '如信息不足，请在不扩展 Scope 的前提下，基于最安全、最小假设继续推进，并显式标注 Assumption。',
    ].join('\n'),
  );
  assert.throws(() => pkg.composeGeminiToolPrompt({ taskType: 'plan', tasks: 'x' }), {
    name: 'AgentContextError',
    code: 'INVALID_INPUT',
    message: "taskType must be 'consult', 'review' or 'execute' (咨询, 审核, 执行), got \"plan\"",
  });
  assert.throws(() => pkg.composeGeminiToolPrompt({ taskType: 'review', tasks: [] }), { message: 'tasks must hold at least one non-empty task' });
});

test('geminiToolDefinition: the name, the description and the schema of the seed parameters', () => {
  const def = pkg.geminiToolDefinition();
  assert.equal(def.name, 'gemini');
  assert.match(def.description, /keep the returned SESSION_ID/);
  const { properties, required, additionalProperties } = def.inputSchema;
  assert.deepEqual(required, ['PROMPT', 'cd']);
  assert.equal(additionalProperties, false);
  assert.deepEqual(
    Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, [v.type, v.default]])),
    {
      PROMPT: ['string', undefined],
      cd: ['string', undefined],
      sandbox: ['string', 'workspace-write'],
      yolo: ['boolean', true],
      SESSION_ID: ['string', undefined],
      model: ['string', 'gemini-3-pro-preview'],
      return_all_messages: ['boolean', false],
      return_metrics: ['boolean', false],
      timeout: ['integer', 300],
      max_duration: ['integer', 1800],
      max_retries: ['integer', 1],
      log_metrics: ['boolean', false],
    },
  );
  // A fresh object each time: the caller may change it.
  def.name = 'changed';
  assert.equal(pkg.geminiToolDefinition().name, 'gemini');
});

test('the tool\'s own module loads on the first runGeminiTool call, not with the library', () => {
  // A fresh process: this file has run the tool already.
  const script = `
    const pkg = require('agent-context');
    const loaded = () => Object.keys(require.cache).map((file) => require('node:path').basename(file));
    const steps = [loaded()];
    pkg.composeGeminiToolPrompt({ taskType: 'review', tasks: 'x' });
    pkg.geminiToolDefinition();
    steps.push(loaded());
    pkg.readEngineeringContext(process.cwd());
    steps.push(loaded());
    pkg.runGeminiTool({ PROMPT: 'x', cd: '' }).then((envelope) => {
      steps.push(loaded(), envelope.error_kind);
      process.stdout.write(JSON.stringify(steps));
    });`;
  const out = require('node:child_process').execFileSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8' });
  const [atLoad, afterPureCalls, afterContext, afterRun, kind] = JSON.parse(out);
  assert.deepEqual(atLoad, ['agent_context.js']);
  assert.deepEqual(afterPureCalls, ['agent_context.js'], 'the template and the definition are in the main module');
  assert.deepEqual(afterContext, ['agent_context.js', 'gemini-tool.cjs'], 'reading the context needs no WebAssembly');
  assert.deepEqual(afterRun, ['agent_context.js', 'gemini-tool.cjs', 'agent_context_node.js']);
  assert.equal(kind, 'invalid_params');
});

test('the tool is Node-only and lazy: the MCP SDK is not loaded by the library', () => {
  assert.equal(typeof pkg.runGeminiTool, 'function');
  assert.equal(pkg.__GeminiToolCall, undefined, 'the internal class is not exported');
  const loaded = Object.keys(require.cache).filter((k) => k.includes('@modelcontextprotocol'));
  assert.deepEqual(loaded, []);
});

/** A stub playing Gemini CLI: reads stdin, prints `stdout` and `stderr`, exits `code`. */
function replay(dir, name, { stdout = '', stderr = '', code = 0 }) {
  const file = path.join(dir, name);
  const body = `process.stdin.resume();\nprocess.stdin.on('end', () => {\n  process.stdout.write(${JSON.stringify(stdout)});\n  process.stderr.write(${JSON.stringify(stderr)});\n  process.exitCode = ${code};\n});\n`;
  fs.writeFileSync(file, `#!${process.execPath}\n${body}`);
  fs.chmodSync(file, 0o755);
  return file;
}

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'cli');
const GEMINI_SESSION = 'b425ff71-01f0-4076-bc86-ba426f1cea0e';
/** Gemini CLI 0.61's failed run: `init`, then a failed `result` saying `message`. */
const geminiFailed = (message) => [
  { type: 'init', session_id: GEMINI_SESSION, model: 'gemini-2.5-flash' },
  { type: 'result', status: 'error', error: { type: 'unknown', message }, stats: { total_tokens: 0 } },
].map((o) => `${JSON.stringify(o)}\n`).join('');
const apiError = (code, message, status) => geminiFailed(`[API Error: ${JSON.stringify({ error: { code, message, status } })}]`);

test('one taxonomy: for the same Gemini CLI output, runGeminiTool\'s error_kind is runAgent\'s error.kind', async () => {
  const dir = tmp();
  const cases = [
    ['HTTP 400', { stdout: apiError(400, 'Mock rejects this request: temperature is out of range.', 'INVALID_ARGUMENT'), code: 144 }, 'request_rejected'],
    ['HTTP 400 about the key (recorded)', { stdout: fs.readFileSync(path.join(FIXTURES, 'gemini-error.jsonl'), 'utf8'), code: 144 }, 'auth_error'],
    ['HTTP 401', { stdout: apiError(401, 'Mock: request had invalid authentication credentials.', 'UNAUTHENTICATED'), code: 145 }, 'auth_error'],
    ['HTTP 403', { stdout: apiError(403, 'Mock: the caller does not have permission.', 'PERMISSION_DENIED'), code: 147 }, 'auth_error'],
    ['HTTP 404', { stdout: apiError(404, 'models/x is not found for API version v1beta.', 'NOT_FOUND'), code: 148 }, 'request_rejected'],
    ['HTTP 429', { stdout: geminiFailed('[API Error: Mock: resource has been exhausted (e.g. check quota).]\nPlease wait and try again later.'), code: 173 }, 'quota_exceeded'],
    ['HTTP 500', { stdout: apiError(500, 'Mock internal error, please retry.', 'INTERNAL'), code: 244 }, 'upstream_error'],
    ['HTTP 503', { stdout: apiError(503, 'Mock is overloaded, try again.', 'UNAVAILABLE'), code: 247 }, 'upstream_error'],
    ['network error', { stdout: geminiFailed('[API Error: exception TypeError: fetch failed sending request]'), code: 1 }, 'network_error'],
    ['empty response (recorded)', { stdout: fs.readFileSync(path.join(FIXTURES, 'gemini-empty.jsonl'), 'utf8') }, 'empty_response'],
    ['no API key', { stderr: 'When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\n', code: 41 }, 'auth_error'],
    ['untrusted folder', { stderr: 'Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`\n', code: 55 }, 'untrusted_folder'],
    ['session not found', { stderr: 'Error resuming session: No previous sessions found for this project.\n', code: 42, session: '3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b' }, 'session_not_found'],
    ['no final result', { stdout: `${JSON.stringify({ type: 'init', session_id: GEMINI_SESSION })}\n` }, 'incomplete'],
    ['success, then exit 3', { stdout: fs.readFileSync(path.join(FIXTURES, 'gemini-plain.jsonl'), 'utf8'), code: 3 }, 'process_error'],
  ];
  for (const [n, [what, output, expected]] of cases.entries()) {
    const command = replay(dir, `gemini-${n}.cjs`, output);
    const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: dir, max_retries: 0, SESSION_ID: output.session }, { command });
    const run = await pkg.runAgent('google-gemini', { prompt: 'x' }, { cd: dir, command, maxRetries: 0, sessionId: output.session });
    assert.equal(envelope.error_kind, run.error?.kind, `${what}: ${JSON.stringify(envelope)}\n${JSON.stringify(run.error)}`);
    assert.equal(envelope.error_kind, expected, what);
    assert.equal(envelope.error_detail.exit_code, run.error.exitCode, what);
    assert.deepEqual(envelope.error_detail.last_lines, run.error.lastLines, what);
  }
  // A file that cannot be executed: the OS refuses the spawn.
  const plainFile = path.join(dir, 'not-executable');
  fs.writeFileSync(plainFile, 'not a program\n');
  const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: dir, max_retries: 3 }, { command: plainFile });
  const run = await pkg.runAgent('google-gemini', { prompt: 'x' }, { cd: dir, command: plainFile, maxRetries: 3 });
  assert.deepEqual([envelope.error_kind, envelope.error_detail.retries], ['spawn_failed', 0], JSON.stringify(envelope));
  assert.deepEqual([run.error.kind, run.attempts], ['spawn_failed', 1]);
});

test('one taxonomy: a retried kind is retried by both, alike', async () => {
  const dir = tmp();
  const command = replay(dir, 'gemini-429.cjs', { stdout: geminiFailed('[API Error: Mock: resource has been exhausted (e.g. check quota).]\nPlease wait and try again later.'), code: 173 });
  const envelope = await pkg.runGeminiTool({ PROMPT: 'x', cd: dir, max_retries: 1 }, { command });
  const run = await pkg.runAgent('google-gemini', { prompt: 'x' }, { cd: dir, command, maxRetries: 1 });
  assert.deepEqual([envelope.error_kind, envelope.error_detail.retries], ['quota_exceeded', 1]);
  assert.deepEqual([run.error.kind, run.error.retryable, run.attempts], ['quota_exceeded', true, 2]);
});

test('the TypeScript union GeminiToolErrorKind is runAgent\'s AgentErrorKind but invalid_output', () => {
  const text = fs.readFileSync(require.resolve('agent-context').replace(/\.js$/, '.d.ts'), 'utf8');
  const members = (name) => {
    const union = text.match(new RegExp(`export type ${name} =([^;]+);`));
    assert.ok(union, `declares ${name}`);
    return [...union[1].matchAll(/'([^']+)'/g)].map((m) => m[1]).sort();
  };
  const kinds = members('AgentErrorKind');
  assert.equal(kinds.length, 18);
  // `invalid_output` is what a reply judged against outputSchema comes to: the tool asks for none.
  assert.deepEqual(members('GeminiToolErrorKind'), kinds.filter((k) => k !== 'invalid_output'));
});
