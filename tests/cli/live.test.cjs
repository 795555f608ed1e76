// The real Claude Code, Codex and Gemini CLIs (pinned dev dependencies), run
// offline against mock APIs on 127.0.0.1 through buildCliInvocation, and
// their output read back with parseAgentOutput and AgentOutputParser.
//
// Each run has its own HOME with a fake key and the base-URL setting, a dead
// proxy for anything but loopback, a time limit after which its process
// group is killed, and a mock that is stopped by its PID.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const harness = require('./harness.cjs');
const { PLAIN_PIECES, NOTES_TEXT } = require('./mocks/common.cjs');
const { runScenario, cleanUp } = require('./scenarios.cjs');
const { turnCalls } = require('./requests.cjs');

const TEST_TIMEOUT_MS = 240_000;
const PLAIN_TEXT = PLAIN_PIECES.join('');
const KIB = 1024;

/** Every string inside a JSON value. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The mock's main calls: the ones that carry the conversation (the turn's, as the mock logs each call's kind). */
function mainCalls(run) {
  return turnCalls(run.requests);
}

/** What holds in every run: the streamed parse equals the whole-text parse. */
function checkStreaming(run) {
  assert.deepEqual(run.streamedReply, run.reply, 'streamed chunks parse as the whole text does');
  const streamedText = run.events.filter((e) => e.type === 'text').map((e) => e.text).join('');
  assert.equal(streamedText, run.reply.text, 'the text events add up to the text');
  assert.equal(run.result.timedOut, false, `${run.cli} finished in time; stderr: ${run.result.stderr}`);
}

/** The prompt reached the API whole, as one text of the conversation. */
function checkPromptArrived(run) {
  const calls = mainCalls(run);
  assert.ok(calls.length >= 1, `${run.cli} called its API`);
  assert.ok(
    strings(calls[0].body).includes(run.invocation.stdin),
    `${run.cli} sent our ${Buffer.byteLength(run.invocation.stdin)}-byte prompt unchanged`,
  );
}

/** The CLI authenticated with the fake key of its HOME sandbox. */
function checkFakeKey(run) {
  const headers = mainCalls(run)[0].headers;
  const key = harness.FAKE_KEYS[run.cli];
  const sent = { claude: headers['x-api-key'], codex: headers.authorization, gemini: headers['x-goog-api-key'] }[run.cli];
  assert.equal(sent, run.cli === 'codex' ? `Bearer ${key}` : key);
}

/** The parsed session id is the CLI's: the one it sent the API, where it sends one. */
function checkSession(run) {
  assert.match(run.reply.sessionId, /^[0-9a-f-]{36}$/);
  const headers = mainCalls(run)[0].headers;
  if (run.cli === 'claude') assert.equal(run.reply.sessionId, headers['x-claude-code-session-id']);
  if (run.cli === 'codex') assert.equal(run.reply.sessionId, JSON.parse(headers['x-codex-turn-metadata']).thread_id);
  // Gemini CLI does not send its session id to the API; resuming proves it below.
}

for (const cli of Object.keys(harness.CLIS)) {
  const version = harness.installedVersion(cli);

  test(`${cli} ${version}: a plain answer`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runScenario(cli, 'plain');
    try {
      checkStreaming(run);
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.reply.status, 'success');
      assert.equal(run.reply.text, PLAIN_TEXT);
      checkSession(run);
      assert.equal(run.reply.errors.filter((e) => e.fatal).length, 0);
      assert.deepEqual(run.reply.toolUses, []);
      assert.equal(run.reply.usage.outputTokens, 9);
      checkPromptArrived(run);
      checkFakeKey(run);
      if (cli === 'claude') {
        // Claude Code appends our systemFlag to its own system prompt.
        assert.ok(run.assembled.systemFlag.length > 0);
        assert.equal(run.invocation.args.filter((a) => a.startsWith('--append-system-prompt=')).length, 1);
        const system = strings(mainCalls(run)[0].body.system).join('\n');
        assert.ok(system.includes(run.assembled.systemFlag), 'the system prompt holds our systemFlag');
      } else {
        assert.equal(run.assembled.systemFlag, undefined);
      }
    } finally {
      cleanUp(run);
    }
  });

  test(`${cli} ${version}: a tool call, then an answer quoting its result`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runScenario(cli, 'tool');
    try {
      checkStreaming(run);
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.reply.status, 'success');
      checkSession(run);
      assert.match(run.reply.text, /The notes say the launch code is 4217\.$/);
      assert.equal(run.reply.toolUses.length, 1);
      const [toolUse] = run.reply.toolUses;
      assert.equal(toolUse.status, 'success');
      assert.equal(toolUse.name, { claude: 'Read', codex: 'command_execution', gemini: 'read_file' }[cli]);
      assert.ok(JSON.stringify(toolUse.input).includes('notes.txt'));
      if (cli === 'codex') assert.equal(toolUse.output, NOTES_TEXT);
      if (cli === 'claude') assert.ok(toolUse.output.includes(NOTES_TEXT.trim()));
      // The CLI ran the tool and sent its output back to the API.
      const calls = mainCalls(run);
      assert.equal(calls.length, 2);
      assert.ok(strings(calls[1].body).some((s) => s.includes('4217')));
      const toolEvents = run.events.filter((e) => e.type === 'toolUse');
      assert.equal(toolEvents.at(-1).toolUse.status, 'success');
    } finally {
      cleanUp(run);
    }
  });

  test(`${cli} ${version}: an API error`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runScenario(cli, 'error');
    try {
      checkStreaming(run);
      // Gemini CLI exits with the HTTP status mod 256 (400 → 144).
      assert.equal(run.result.code, cli === 'gemini' ? 144 : 1, run.result.stderr);
      assert.equal(run.reply.status, 'error');
      checkSession(run);
      assert.equal(run.reply.text, '');
      const fatal = run.reply.errors.filter((e) => e.fatal);
      assert.equal(fatal.length, 1);
      // Codex words a 500 its own way; the others pass the API's message on.
      const expected = cli === 'codex' ? /high demand/ : /Mock rejects this request/;
      assert.match(fatal[0].message, expected);
      if (cli === 'claude') {
        // The trap: `subtype: "success"` with `is_error: true`.
        const result = JSON.parse(run.result.stdout.toString().trim().split('\n').at(-1));
        assert.equal(result.subtype, 'success');
        assert.equal(result.is_error, true);
      }
      if (cli === 'codex') {
        assert.ok(run.reply.errors.some((e) => !e.fatal && e.message.startsWith('Reconnecting')));
      }
      assert.ok(run.events.some((e) => e.type === 'status' && e.status === 'error'));
    } finally {
      cleanUp(run);
    }
  });

  test(`${cli} ${version}: a prompt over 128 KiB travels on stdin`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const question = `${'Please weigh every option. '.repeat(6000)}End of the long question.`;
    const overrides = { currentMessage: question };
    if (cli === 'claude') {
      overrides.systemInstruction = `You are Carol. ${'Keep the accessibility guide in mind. '.repeat(4000)}`;
    }
    const run = await runScenario(cli, 'plain', { overrides });
    try {
      checkStreaming(run);
      assert.ok(Buffer.byteLength(run.invocation.stdin) > 128 * KIB);
      assert.ok(run.invocation.args.every((a) => Buffer.byteLength(a) < 128 * KIB));
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.reply.status, 'success');
      assert.equal(run.reply.text, PLAIN_TEXT);
      checkPromptArrived(run);
      if (cli === 'claude') {
        // Too long for --append-system-prompt: it went through a file.
        assert.ok(Buffer.byteLength(run.assembled.systemFlag) > 128 * KIB);
        assert.deepEqual(run.invocation.files.map((f) => f.content), [run.assembled.systemFlag]);
        assert.ok(run.invocation.args.includes(`--append-system-prompt-file=${run.invocation.files[0].path}`));
        const system = strings(mainCalls(run)[0].body.system).join('\n');
        assert.ok(system.includes(run.assembled.systemFlag), 'the system prompt holds our long systemFlag');
      }
    } finally {
      cleanUp(run);
    }
  });

  test(`${cli} ${version}: resuming the session with sessionId`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const first = await runScenario(cli, 'plain', { overrides: { currentMessage: 'First question: colours?' } });
    try {
      assert.equal(first.reply.status, 'success');
      const second = await runScenario(cli, 'plain', {
        reuse: first,
        overrides: { currentMessage: 'Second question: fonts?' },
        options: { sessionId: first.reply.sessionId },
      });
      checkStreaming(second);
      assert.equal(second.result.code, 0, second.result.stderr);
      assert.equal(second.reply.status, 'success');
      assert.equal(second.reply.sessionId, first.reply.sessionId);
      // The API saw the first exchange again, before the second question.
      const texts = strings(mainCalls(second)[0].body);
      assert.ok(texts.some((t) => t.includes('First question: colours?')));
      assert.ok(texts.some((t) => t.includes(PLAIN_TEXT)));
      assert.ok(texts.includes(second.invocation.stdin));
    } finally {
      cleanUp(first);
    }
  });
}

for (const cli of ['claude', 'codex']) {
  test(`${cli}: a retried API call is a note, not a failure`, { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runScenario(cli, 'flaky');
    try {
      checkStreaming(run);
      assert.equal(run.result.code, 0, run.result.stderr);
      assert.equal(run.reply.status, 'success');
      assert.equal(run.reply.text, PLAIN_TEXT);
      const notes = run.reply.errors.filter((e) => !e.fatal);
      const retry = cli === 'claude' ? /^API call retried \(attempt 1 of \d+\): overloaded, HTTP 529$/ : /^Reconnecting\.\.\. 1\/1 .*503/;
      assert.ok(notes.some((e) => retry.test(e.message)), JSON.stringify(notes));
      assert.equal(mainCalls(run).length, 2);
    } finally {
      cleanUp(run);
    }
  });
}

// The traps buildCliInvocation encodes: without these flags the CLIs refuse
// to run in a folder the host picked.
test('gemini without --skip-trust exits 55 in an untrusted folder', { timeout: TEST_TIMEOUT_MS }, async () => {
  const run = await runScenario('gemini', 'plain', {
    edit: (inv) => ({ ...inv, args: inv.args.filter((a) => a !== '--skip-trust') }),
  });
  try {
    assert.equal(run.result.code, 55);
    assert.match(run.result.stderr, /not running in a trusted directory/);
    assert.equal(run.reply.status, 'incomplete');
    assert.equal(mainCalls(run).length, 0);
  } finally {
    cleanUp(run);
  }
});

test('codex without --skip-git-repo-check refuses a folder outside git', { timeout: TEST_TIMEOUT_MS }, async () => {
  const run = await runScenario('codex', 'plain', {
    edit: (inv) => ({ ...inv, args: inv.args.filter((a) => a !== '--skip-git-repo-check') }),
  });
  try {
    assert.equal(run.result.code, 1);
    assert.match(run.result.stderr, /--skip-git-repo-check was not specified/);
    assert.equal(mainCalls(run).length, 0);
  } finally {
    cleanUp(run);
  }
});

test('the recorded fixtures come from the CLI versions installed now', () => {
  const recorded = JSON.parse(fs.readFileSync(`${harness.ROOT}/tests/fixtures/cli/versions.json`, 'utf8'));
  for (const cli of Object.keys(harness.CLIS)) {
    assert.equal(recorded[harness.CLIS[cli].pkg], harness.installedVersion(cli), `re-record with node tests/cli/record.cjs`);
  }
});
