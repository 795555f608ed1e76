#!/usr/bin/env node
// Re-records the fixtures in tests/fixtures/cli/: the stdout of each real
// CLI on each scenario, run offline against its mock API, plus the CLI
// versions. Run it after `npm run build` when a CLI is upgraded:
//
//   node tests/cli/record.cjs
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const harness = require('./harness.cjs');
const { runScenario, cleanUp } = require('./scenarios.cjs');

const FIXTURES = path.join(harness.ROOT, 'tests', 'fixtures', 'cli');

/** Which scenarios each CLI is recorded on. Gemini CLI prints nothing of its
 * retries on stdout, so its `flaky` run would show nothing new; its `empty`
 * run shows the `error` event and a failed result with exit code 0. */
const RECORDED = {
  claude: ['plain', 'tool', 'error', 'flaky'],
  codex: ['plain', 'tool', 'error', 'flaky'],
  gemini: ['plain', 'tool', 'error', 'empty'],
};

async function main() {
  fs.mkdirSync(FIXTURES, { recursive: true });
  const versions = {};
  for (const [cli, scenarios] of Object.entries(RECORDED)) {
    versions[harness.CLIS[cli].pkg] = harness.installedVersion(cli);
    for (const scenario of scenarios) {
      const run = await runScenario(cli, scenario);
      try {
        const file = path.join(FIXTURES, `${cli}-${scenario}.jsonl`);
        fs.writeFileSync(file, run.result.stdout);
        process.stdout.write(
          `${path.relative(harness.ROOT, file)}: exit ${run.result.code}, ${run.result.stdout.length} bytes, status ${run.reply.status}\n`,
        );
      } finally {
        cleanUp(run);
      }
    }
  }
  fs.writeFileSync(path.join(FIXTURES, 'versions.json'), `${JSON.stringify(versions, null, 2)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
