// Runs `runAgent` in this process and prints its result as one JSON line:
// started by a test as another user (child_process `uid`/`gid`), so that
// the whole run — the run's folder, the agent's home, the agent — is that
// user's. argv[2]: `{ runs: [{ agentType, request, options }] }`; a run's
// `options.sessionId === '$previous'` takes the previous run's session.
'use strict';
const pkg = require('agent-context');

async function main() {
  const { runs } = JSON.parse(process.argv[2]);
  const results = [];
  for (const { agentType, request, options } of runs) {
    const given = { ...options };
    if (given.sessionId === '$previous') given.sessionId = results.at(-1)?.sessionId;
    results.push(await pkg.runAgent(agentType, request, { ...given, env: process.env }));
  }
  process.stdout.write(`${JSON.stringify({ uid: process.getuid(), results })}\n`);
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ thrown: String(err && err.stack) })}\n`);
  process.exitCode = 1;
});
