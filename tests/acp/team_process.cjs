// Runs an AgentTeam in this process and prints what it came to as one JSON
// line: started by a test as a new Node process, so that a team stored with
// `toJSON` in one process is brought back with `fromJSON` in another, as an
// app restart does. argv[2]: `{ create?: options, restore?: { json,
// options }, posts: [message], asks: [{ member, message? }] }`; prints `{
// turns: [{ member, success, error, kind, sessionId }], json }`.
'use strict';
const { AgentTeam } = require('agent-context');

async function main() {
  const job = JSON.parse(process.argv[2]);
  const team = job.restore ? AgentTeam.fromJSON(job.restore.json, job.restore.options) : new AgentTeam(job.create);
  const turns = [];
  try {
    for (const message of job.posts) team.post(message);
    for (const { member, message } of job.asks) {
      const turn = await team.ask(member, message === undefined ? {} : { message });
      turns.push({ member, success: turn.success, error: turn.error, kind: turn.context.kind, sessionId: turn.sessionId });
    }
  } finally {
    await team.close();
  }
  process.stdout.write(`${JSON.stringify({ turns, json: team.toJSON() })}\n`);
}

main().catch((err) => {
  process.stdout.write(`${JSON.stringify({ thrown: String(err && err.stack) })}\n`);
  process.exitCode = 1;
});
