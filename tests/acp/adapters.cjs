// The executables the ACP live tests start for each agent. The maintained
// adapters (@agentclientprotocol/claude-agent-acp,
// @agentclientprotocol/codex-acp) unless ACP_ADAPTER_SCOPE=@zed-industries
// picks Zed's frozen ones, still among the tested versions; both are pinned
// in tests/agents/package.json. Each is named by its package: both scopes
// declare the bins `claude-agent-acp` and `codex-acp`, and npm links into
// tests/agents/node_modules/.bin only the one it reaches first.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const AGENT_MODULES = path.join(__dirname, '..', 'agents', 'node_modules');
const SCOPES = ['@agentclientprotocol', '@zed-industries'];
const ADAPTER_SCOPE = process.env.ACP_ADAPTER_SCOPE || SCOPES[0];
if (!SCOPES.includes(ADAPTER_SCOPE)) {
  throw new Error(`ACP_ADAPTER_SCOPE must be one of ${SCOPES.join(', ')}, got "${ADAPTER_SCOPE}"`);
}

/** The executable of `<ADAPTER_SCOPE>/<name>`: its bin of that name. */
function adapter(name, scope = ADAPTER_SCOPE) {
  const dir = path.join(AGENT_MODULES, scope, name);
  const { bin } = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  return path.join(dir, typeof bin === 'string' ? bin : bin[name]);
}

/** cli → executable. */
const ADAPTERS = {
  claude: adapter('claude-agent-acp'),
  codex: adapter('codex-acp'),
  gemini: path.join(AGENT_MODULES, '.bin', 'gemini'),
};

// A model slug the adapter's Codex knows (with another one Codex sends a
// "Model metadata … not found" warning as assistant text); the mocks answer
// whatever the slug.
const CODEX_MODEL = ADAPTER_SCOPE === '@zed-industries' ? 'gpt-5.3-codex' : 'gpt-5.5';

/** The maintained adapters, whatever the scope (what only they do is tested on them), and their Codex's model. */
const MAINTAINED = { claude: adapter('claude-agent-acp', SCOPES[0]), codex: adapter('codex-acp', SCOPES[0]), codexModel: 'gpt-5.5' };

module.exports = { ADAPTERS, ADAPTER_SCOPE, CODEX_MODEL, MAINTAINED };
