// One run of a real agent CLI against its mock API, the way a host runs it:
// assemble the prompt, build the command line with buildCliInvocation, spawn,
// stream stdout through an AgentOutputParser, and parse the whole stdout with
// parseAgentOutput. Shared by the live tests and the fixture recorder.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const harness = require('./harness.cjs');

const RUN_TIMEOUT_MS = 90_000;

/** What the member is asked in each scenario. */
const QUESTIONS = {
  plain: 'What UI framework should we use, and why?',
  tool: 'Read notes.txt and tell me the launch code.',
  error: 'What UI framework should we use, and why?',
  flaky: 'What UI framework should we use, and why?',
  empty: 'What UI framework should we use, and why?',
};

/** The seed's sample conversation with `overrides` (e.g. another question). */
function input(overrides = {}) {
  return { ...pkg.sampleInput(), ...overrides };
}

/**
 * Runs `cli` on `scenario`. `overrides` change the assembled input,
 * `options` the invocation, `edit(invocation)` may alter the command line
 * before the spawn (the trap tests drop a flag), `reuse` runs in an earlier
 * run's sandbox against its mock (to resume a session).
 */
async function runScenario(cli, scenario, { overrides = {}, options = {}, edit, reuse } = {}) {
  const dir = reuse ? reuse.dir : harness.tempDir(`${cli}-${scenario}`);
  const mock = reuse ? reuse.mock : await harness.startMock(harness.CLIS[cli].api, scenario, dir);
  const { agentType } = harness.CLIS[cli];
  const assembled = pkg.assemble(agentType, input({ currentMessage: QUESTIONS[scenario], ...overrides }));
  let invocation = pkg.buildCliInvocation(agentType, assembled, {
    command: harness.executable(cli),
    model: harness.MODELS[cli],
    systemPromptFile: path.join(dir, 'system-prompt.md'),
    ...options,
  });
  if (edit) invocation = edit(invocation);
  const { env, cwd } = reuse ? reuse.sandbox : harness.sandbox(cli, mock, dir);
  const requestsBefore = mock.requests().length;

  const streamed = new pkg.AgentOutputParser(agentType);
  const events = [];
  const result = await harness.run(invocation, {
    cwd,
    env,
    timeoutMs: RUN_TIMEOUT_MS,
    onStdout: (chunk) => events.push(...streamed.push(chunk)),
  });
  return {
    cli,
    scenario,
    dir,
    mock,
    sandbox: { env, cwd },
    assembled,
    invocation,
    result,
    reply: pkg.parseAgentOutput(agentType, result.stdout),
    streamedReply: streamed.finish(),
    events,
    requests: mock.requests().slice(requestsBefore),
  };
}

/** Stops the run's mock (by PID) and removes its sandbox. */
function cleanUp(run) {
  run.mock.stop();
  fs.rmSync(run.dir, { recursive: true, force: true });
}

module.exports = { QUESTIONS, runScenario, cleanUp };
