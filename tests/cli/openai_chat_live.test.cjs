// The real Qwen Code, GitHub Copilot CLI and opencode (the pinned versions,
// installed by install_openai_chat_agents.sh) run offline against the OpenAI Chat Completions mock on
// 127.0.0.1 through buildCliInvocation, their stdout read back with
// parseAgentOutput and AgentOutputParser (and Copilot's usage file with
// mergeAgentOutputFile): a plain answer, a tool call then an answer, HTTP
// 400, HTTP 500, and a resumed session. Runs share no state (each has its
// own HOME, folder and mock), so they run side by side.
'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { AGENTS, SUITE_AGENTS, NOTES_TEXT, executable } = require('./openai_chat_agents.cjs');
const { runChatScenario, cleanUp } = require('./openai_chat_scenarios.cjs');
const chat = require('./mocks/openai-chat.cjs');
const { PLAIN_PIECES } = require('./mocks/common.cjs');
const { turnCalls } = require('./requests.cjs');

const PLAIN_TEXT = PLAIN_PIECES.join('');
const TOOL_ANSWER = 'The notes say the launch code is 4217.';
const TEST_TIMEOUT_MS = 200_000;
/** The HTTP 500 runs wait out each CLI's own retries (Qwen ~75-110 s, opencode ~90 s). */
const LIMIT_500_MS = 150_000;

/** Every string inside a JSON value. */
function strings(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** The calls that carry the conversation: the turn's, not a side call (a title, Qwen's memory extraction: the mock logs each call's kind). */
function mainCalls(run) {
  return turnCalls(run.requests);
}

function checkStreaming(run) {
  assert.equal(run.result.timedOut, false, `${run.cli} finished in time; stderr: ${run.result.stderr}`);
  assert.deepEqual(run.streamedReply, run.reply, 'streamed chunks parse as the whole text does');
  const streamedText = run.events.filter((e) => e.type === 'text').map((e) => e.text).join('');
  assert.equal(streamedText, run.reply.text);
}

/** The prompt reached the API whole, on stdin, never in argv. */
function checkPrompt(run) {
  const calls = mainCalls(run);
  assert.ok(calls.length >= 1, `${run.cli} called its API`);
  assert.ok(strings(calls[0].body.messages).some((s) => s.includes(run.invocation.stdin)), 'the prompt arrived unchanged');
  assert.ok(!run.invocation.args.some((a) => a.includes('What UI framework')));
  assert.equal(calls[0].headers.authorization, `Bearer ${require('./openai_chat_agents.cjs').FAKE_KEY}`);
}

/** The mock's usage for `calls` main calls (Copilot: from its usage file). */
function expectedUsage(calls) {
  const u = chat.MAIN_USAGE;
  return {
    inputTokens: u.prompt_tokens * calls,
    cachedInputTokens: u.prompt_tokens_details.cached_tokens * calls,
    outputTokens: u.completion_tokens * calls,
    totalTokens: u.total_tokens * calls,
  };
}

function checkUsage(run, calls) {
  const { durationMs, costUsd, ...counts } = run.reply.usage;
  assert.deepEqual(counts, expectedUsage(calls));
  if (run.cli === 'opencode') assert.equal(costUsd, 0);
}

/** The id the CLI printed where it prints it. */
function printedSession(run) {
  const lines = run.result.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
  if (run.cli === 'copilot') return lines.at(-1).sessionId;
  if (run.cli === 'opencode') return lines[0].sessionID;
  return lines[0].session_id;
}

const TOOL_NAMES = { qwen: 'read_file', copilot: 'view', opencode: 'read' };

describe('Qwen Code, Copilot and opencode against the OpenAI Chat Completions mock', { concurrency: 6 }, () => {
  for (const cli of Object.keys(SUITE_AGENTS)) {
    const { version } = AGENTS[cli];
    it(`${cli} ${version} is installed where the tests run it`, () => {
      assert.ok(require('node:fs').existsSync(executable(cli)), `${executable(cli)}: bash tests/cli/install_openai_chat_agents.sh (run by scripts/setup.sh) installs the pinned CLIs`);
    });

    it(`${cli} ${version}: HTTP 500 is a failed reply after the CLI's own retries`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const run = await runChatScenario(cli, 'error500', { limitMs: LIMIT_500_MS });
      try {
        checkStreaming(run);
        assert.equal(run.result.code, 1, run.result.stderr);
        assert.equal(run.reply.status, 'error');
        assert.equal(run.reply.text, '');
        const fatal = run.reply.errors.filter((e) => e.fatal);
        assert.equal(fatal.length, 1, JSON.stringify(run.reply.errors));
        assert.match(fatal[0].message, new RegExp(`500 ${chat.ERROR_500.error.message}|^${chat.ERROR_500.error.message}$`));
        assert.ok(mainCalls(run).length >= 2, 'the CLI retried');
        assert.equal(run.reply.sessionId, printedSession(run));
      } finally {
        cleanUp(run);
      }
    });

    it(`${cli} ${version}: a plain answer`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const run = await runChatScenario(cli, 'plain');
      try {
        checkStreaming(run);
        assert.equal(run.result.code, 0, run.result.stderr);
        assert.equal(run.reply.status, 'success');
        assert.equal(run.reply.text, PLAIN_TEXT);
        assert.equal(run.reply.sessionId, printedSession(run));
        assert.deepEqual(run.reply.toolUses, []);
        assert.deepEqual(run.reply.errors, []);
        checkPrompt(run);
        checkUsage(run, 1);
        if (cli === 'qwen') {
          // Claude's layout: the instructions went to --append-system-prompt.
          assert.ok(run.assembled.systemFlag.length > 0);
          const system = strings(mainCalls(run)[0].body.messages.filter((m) => m.role === 'system')).join('\n');
          assert.ok(system.includes(run.assembled.systemFlag), 'the system prompt holds our systemFlag');
        } else {
          assert.equal(run.assembled.systemFlag, undefined);
        }
        if (cli === 'copilot') {
          // Usage only in the file the invocation named.
          assert.deepEqual(run.invocation.outputs.map((o) => o.kind), ['usage']);
          assert.ok(!run.invocation.args.includes('-p'));
        }
      } finally {
        cleanUp(run);
      }
    });

    it(`${cli} ${version}: a tool call, then an answer quoting its result`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const run = await runChatScenario(cli, 'tool');
      try {
        checkStreaming(run);
        assert.equal(run.result.code, 0, run.result.stderr);
        assert.equal(run.reply.status, 'success');
        assert.equal(run.reply.text, TOOL_ANSWER);
        assert.equal(run.reply.toolUses.length, 1);
        const [tool] = run.reply.toolUses;
        assert.equal(tool.name, TOOL_NAMES[cli]);
        assert.equal(tool.status, 'success');
        assert.ok(JSON.stringify(tool.input).includes(run.notesPath));
        assert.ok(tool.output.includes(NOTES_TEXT.trim()));
        const calls = mainCalls(run);
        assert.equal(calls.length, 2);
        assert.ok(strings(calls[1].body.messages).some((s) => s.includes('4217')));
        checkUsage(run, 2);
      } finally {
        cleanUp(run);
      }
    });

    it(`${cli} ${version}: HTTP 400 is a failed reply`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const run = await runChatScenario(cli, 'error400');
      try {
        checkStreaming(run);
        assert.equal(run.result.code, 1, run.result.stderr);
        assert.equal(run.reply.status, 'error');
        assert.equal(run.reply.text, '');
        const fatal = run.reply.errors.filter((e) => e.fatal);
        assert.equal(fatal.length, 1, JSON.stringify(run.reply.errors));
        assert.ok(fatal[0].message.includes(chat.ERROR_400.error.message));
        assert.equal(mainCalls(run).length, 1, 'a 400 is not retried');
        assert.equal(run.reply.sessionId, printedSession(run));
      } finally {
        cleanUp(run);
      }
    });

    it(`${cli} ${version}: resuming the session with sessionId`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const first = await runChatScenario(cli, 'plain', { overrides: { currentMessage: 'First question: colours?' } });
      try {
        assert.equal(first.reply.status, 'success');
        const second = await runChatScenario(cli, 'plain', {
          reuse: first,
          overrides: { currentMessage: 'Second question: fonts?' },
          options: { sessionId: first.reply.sessionId },
        });
        checkStreaming(second);
        assert.equal(second.result.code, 0, second.result.stderr);
        assert.equal(second.reply.status, 'success');
        assert.equal(second.reply.sessionId, first.reply.sessionId);
        const texts = strings(mainCalls(second)[0].body.messages);
        assert.ok(texts.some((t) => t.includes('First question: colours?')), 'the first exchange was sent again');
        assert.ok(texts.some((t) => t.includes(PLAIN_TEXT)));
        if (cli === 'qwen') checkUsage(second, 1); // this run's, not the session's
        if (cli === 'copilot') checkUsage(second, 2); // Copilot's file counts the whole session
      } finally {
        cleanUp(first);
      }
    });
  }

  it('copilot: a denied tool still exits 0, and the reply says it was denied', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runChatScenario('copilot', 'shell', { options: { extraArgs: ['--deny-tool=shell'] } });
    try {
      checkStreaming(run);
      assert.equal(run.result.code, 0);
      assert.equal(run.reply.status, 'success');
      const [tool] = run.reply.toolUses;
      assert.equal(tool.status, 'error');
      assert.ok(run.reply.errors.some((e) => !e.fatal && e.code === 'denied'));
    } finally {
      cleanUp(run);
    }
  });

  it('copilot: with -p, stdin is dropped (why the invocation never passes it)', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runChatScenario('copilot', 'plain', {
      edit: (inv) => ({ ...inv, args: [...inv.args, '-p', 'Say hi'] }),
    });
    try {
      const calls = mainCalls(run);
      assert.equal(calls.length, 1);
      const texts = strings(calls[0].body.messages);
      assert.ok(texts.some((t) => t.includes('Say hi')));
      assert.ok(!texts.some((t) => t.includes('What UI framework')), 'our stdin prompt was dropped');
    } finally {
      cleanUp(run);
    }
  });

  it('qwen: exit 53 at --max-session-turns, no result line: incomplete', { timeout: TEST_TIMEOUT_MS }, async () => {
    const run = await runChatScenario('qwen', 'tool', { options: { extraArgs: ['--max-session-turns=1'] } });
    try {
      checkStreaming(run);
      assert.equal(run.result.code, 53);
      assert.ok(!run.result.stdout.toString().includes('"type":"result"'));
      assert.equal(run.reply.status, 'incomplete');
    } finally {
      cleanUp(run);
    }
  });
});
