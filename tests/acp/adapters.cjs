// The executables the ACP live tests start for each agent. Zed's adapters
// (@zed-industries/claude-agent-acp, @zed-industries/codex-acp) unless
// ACP_ADAPTER_SCOPE=@agentclientprotocol picks the maintained ones; both are
// pinned in tests/agents/package.json. Each is named by its package: both
// scopes declare the bins `claude-agent-acp` and `codex-acp`, and npm links
// into tests/agents/node_modules/.bin the one it reaches first (the
// @agentclientprotocol one), so `.bin/<name>` is not Zed's.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const AGENT_MODULES = path.join(__dirname, '..', 'agents', 'node_modules');
const ADAPTER_SCOPE = process.env.ACP_ADAPTER_SCOPE || '@zed-industries';

/** The executable of `<ADAPTER_SCOPE>/<name>`: its bin of that name. */
function adapter(name) {
  const dir = path.join(AGENT_MODULES, ADAPTER_SCOPE, name);
  const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return path.join(dir, typeof bin === 'string' ? bin : bin[name]);
}

/** cli → executable. */
const ADAPTERS = {
  claude: adapter('claude-agent-acp'),
  codex: adapter('codex-acp'),
  gemini: path.join(AGENT_MODULES, '.bin', 'gemini'),
};

module.exports = { ADAPTERS, ADAPTER_SCOPE };
