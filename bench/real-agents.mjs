// What the benchmarks that time real agents share (bench/scenarios/
// turn-two.mjs and serve.mjs): the ACP adapters the live tests install
// (tests/acp/adapters.cjs, or why they cannot be used), and a round of
// Claude Code, Codex or Gemini CLI offline against the live tests' mock
// API on 127.0.0.1 (tests/cli/harness.cjs), in a folder and HOME of its own.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
export const harness = require('../tests/cli/harness.cjs');

/** The ACP adapters of tests/acp/adapters.cjs, or `{ missing }`: why they cannot be used. */
export const adapters = (() => {
  try {
    return require('../tests/acp/adapters.cjs');
  } catch (error) {
    return { missing: `not installed (bash scripts/setup.sh --agents): ${error.message.split('\n')[0]}` };
  }
})();

/** Why `cli`'s ACP adapter cannot be run, or null. */
export function adapterMissing(cli) {
  if (adapters.missing) return adapters.missing;
  return fs.existsSync(adapters.ADAPTERS[cli]) ? null : `not installed (bash scripts/setup.sh --agents): ${adapters.ADAPTERS[cli]}`;
}

/**
 * A folder under `base`, a mock of Claude's, Codex's or Gemini's API
 * playing `plain` (answering `maxRequests` calls, or its default), a HOME
 * with the agent's retries off (as tests/acp/ does): `{ dir, mock, env,
 * home, cwd, end() }`.
 */
export async function mockRound(cli, base, { maxRequests } = {}) {
  fs.mkdirSync(base, { recursive: true });
  const dir = fs.mkdtempSync(path.join(base, `${cli}-`));
  const mock = await harness.startMock(harness.CLIS[cli].api, 'plain', dir, { maxRequests });
  const box = harness.sandbox(cli, mock, dir, { geminiSettings: { general: { maxAttempts: 1 } } });
  if (cli === 'claude') box.env.CLAUDE_CODE_MAX_RETRIES = '0';
  if (cli === 'codex') {
    const config = path.join(box.home, '.codex', 'config.toml');
    fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace('stream_max_retries = 1', 'stream_max_retries = 0'));
  }
  const end = () => {
    mock.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { dir, mock, env: box.env, home: box.home, cwd: fs.realpathSync(box.cwd), end };
}

/** `cli`'s options over ACP in `round`: its adapter, model, folder and env. */
export function acpOptions(cli, round) {
  return { cd: round.cwd, command: adapters.ADAPTERS[cli], model: cli === 'codex' ? adapters.CODEX_MODEL : harness.MODELS[cli], env: round.env };
}
