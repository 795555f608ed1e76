#!/usr/bin/env node
// Records the fixtures of Qwen Code, GitHub Copilot CLI and opencode: the
// stdout of each real CLI on each scenario against the OpenAI Chat
// Completions mock, in tests/fixtures/cli/<agent-type>/<version>/<scenario>.jsonl
// (Copilot's usage file beside it as <scenario>.usage.json). Run after
// `npm run build`, the CLIs installed (see openai_chat_agents.cjs):
//
//   node tests/cli/record_openai_chat_agents.cjs [qwen|copilot|opencode …]
//
// Scenarios: plain, tool, error400, error500, resume (a second run resuming
// the plain run's session), and each CLI's trap: qwen `max-turns` (exit 53,
// no result line), copilot `denied` (a denied tool, exit 0).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { AGENTS, ROOT } = require('./openai_chat_agents.cjs');
const { runChatScenario, cleanUp } = require('./openai_chat_scenarios.cjs');

const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'cli');

/** name → how to run it: the mock's scenario and invocation options. */
const SCENARIOS = {
  plain: { mock: 'plain' },
  tool: { mock: 'tool' },
  error400: { mock: 'error400' },
  error500: { mock: 'error500', limitMs: 120_000 },
};
const TRAPS = {
  qwen: { 'max-turns': { mock: 'tool', options: { extraArgs: ['--max-session-turns=1'] } } },
  copilot: { denied: { mock: 'shell', options: { extraArgs: ['--deny-tool=shell'] } } },
  opencode: {},
};

function save(cli, name, run) {
  const dir = path.join(FIXTURES, AGENTS[cli].agentType, AGENTS[cli].version);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.jsonl`), run.result.stdout);
  if (run.outputs.usage) fs.writeFileSync(path.join(dir, `${name}.usage.json`), run.outputs.usage);
  process.stdout.write(
    `${cli} ${name}: exit ${run.result.code}, ${run.result.stdout.length} bytes, ${run.result.ms} ms, status ${run.reply.status}\n`,
  );
}

async function recordOne(cli, name, spec) {
  const run = await runChatScenario(cli, spec.mock, { options: spec.options, limitMs: spec.limitMs });
  try {
    save(cli, name, run);
  } finally {
    cleanUp(run);
  }
}

async function recordCli(cli) {
  const jobs = Object.entries({ ...SCENARIOS, ...TRAPS[cli] }).map(([name, spec]) => recordOne(cli, name, spec));
  jobs.push(
    (async () => {
      const first = await runChatScenario(cli, 'plain', { overrides: { currentMessage: 'First question: colours?' } });
      try {
        const second = await runChatScenario(cli, 'plain', {
          reuse: first,
          overrides: { currentMessage: 'Second question: fonts?' },
          options: { sessionId: first.reply.sessionId },
        });
        save(cli, 'resume-first', first);
        save(cli, 'resume', second);
      } finally {
        cleanUp(first);
      }
    })(),
  );
  await Promise.all(jobs);
}

const clis = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(AGENTS);
Promise.all(clis.map(recordCli)).catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
