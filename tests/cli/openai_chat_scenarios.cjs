// One run of Qwen Code, GitHub Copilot CLI or opencode against the OpenAI
// Chat Completions mock, the way a host runs it: assemble the prompt, build
// the command line with buildCliInvocation (with a usage file, for Copilot),
// spawn, parse stdout whole (parseAgentOutput) and as it came, chunk by
// chunk (AgentOutputParser), and merge the invocation's `outputs`
// (mergeAgentOutputFile). Shared by the live tests and the recorder.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const pkg = require('agent-context');
const { runAgentCli, cleanUp } = require('./openai_chat_agents.cjs');

/** What the member is asked in each scenario. */
const QUESTIONS = {
  plain: 'What UI framework should we use, and why?',
  tool: 'Read notes.txt and tell me the launch code.',
  shell: 'Run cat notes.txt and tell me the launch code.',
  error400: 'What UI framework should we use, and why?',
  error500: 'What UI framework should we use, and why?',
};

/**
 * Runs `cli` on the mock's `scenario`. `overrides` change the assembled
 * input, `options` the invocation, `edit(invocation)` the command line;
 * `reuse` runs in an earlier run's HOME and folder (resume); `command` is
 * the executable of another release than the pinned one, `env` changes to
 * its environment.
 */
async function runChatScenario(cli, scenario, { overrides = {}, options = {}, edit, reuse, limitMs, command, env } = {}) {
  const { agentType } = require('./openai_chat_agents.cjs').AGENTS[cli];
  let assembled;
  const run = await runAgentCli(
    cli,
    scenario,
    (ctx) => {
      assembled = pkg.assemble(agentType, { ...pkg.sampleInput(), currentMessage: QUESTIONS[scenario], ...overrides });
      let invocation = pkg.buildCliInvocation(agentType, assembled, {
        command: ctx.executable,
        usageFile: path.join(ctx.runDir, 'usage.json'),
        ...options,
      });
      if (edit) invocation = edit(invocation);
      return invocation;
    },
    { reuse, limitMs, command, env },
  );
  const streamed = new pkg.AgentOutputParser(agentType);
  const events = [];
  for (const chunk of run.result.chunks) events.push(...streamed.push(chunk));
  let reply = pkg.parseAgentOutput(agentType, run.result.stdout);
  let streamedReply = streamed.finish();
  const outputs = {};
  for (const output of run.invocation.outputs ?? []) {
    if (!fs.existsSync(output.path)) continue;
    const content = fs.readFileSync(output.path, 'utf8');
    outputs[output.kind] = content;
    reply = pkg.mergeAgentOutputFile(agentType, reply, { kind: output.kind, content });
    streamedReply = pkg.mergeAgentOutputFile(agentType, streamedReply, { kind: output.kind, content });
  }
  return { ...run, agentType, assembled, reply, streamedReply, events, outputs };
}

module.exports = { QUESTIONS, runChatScenario, cleanUp };
