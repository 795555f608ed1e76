#!/usr/bin/env node
// Kimi CLI (PyPI `kimi-cli`, bin `kimi`) over ACP (`kimi acp`) against one
// of the mocks. Use 1.51.0: 1.52.0, the last release, is a deprecation stub
// (see docs/agents.md).
//
//   KIMI_INSTALL=/path/to/venv node tests/acp/new_agents/probe_kimi.cjs
//
// KIMI_INSTALL is a Python (3.13) venv where `pip install kimi-cli==1.51.0`
// ran. KIMI_PROVIDER picks the provider type and mock: openai_legacy (Chat
// Completions, default), openai_responses, anthropic, gemini.
// PROBE_SCENARIOS=plain,tool,shell,error (default plain,tool); RECORD=1 saves
// tests/fixtures/acp/kimi/<version>/<scenario>.jsonl (openai_legacy only).
// Offline setup: ~/.kimi/config.toml with a provider (type, base_url,
// api_key), a model, default_model and telemetry = false; for ACP mode a
// placeholder account token in ~/.kimi/credentials/kimi-code.json.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { main, installDir } = require('./probe_common.cjs');

const venv = installDir('KIMI_INSTALL', 'python3.13 -m venv <folder> && <folder>/bin/pip install kimi-cli==1.51.0');

/** The installed kimi-cli version, from its dist-info folder. */
function kimiVersion() {
  const lib = path.join(venv, 'lib');
  for (const py of fs.readdirSync(lib)) {
    const site = path.join(lib, py, 'site-packages');
    const info = fs.existsSync(site) && fs.readdirSync(site).find((d) => /^kimi_cli-.*\.dist-info$/.test(d));
    if (info) return info.replace(/^kimi_cli-/, '').replace(/\.dist-info$/, '');
  }
  throw new Error(`no kimi_cli in ${venv}`);
}

/** Each provider type: the mock it talks to, its base URL, a model name. */
const PROVIDERS = {
  openai_legacy: { api: 'chat', base: (o) => `${o}/v1`, model: 'gpt-mock', errors: { error: 'error400' } },
  openai_responses: { api: 'openai', base: (o) => `${o}/v1`, model: 'gpt-mock', errors: {} },
  anthropic: { api: 'anthropic', base: (o) => o, model: 'claude-mock-1', errors: {} },
  gemini: { api: 'gemini', base: (o) => o, model: 'gemini-2.5-flash', errors: {} },
};
const type = process.env.KIMI_PROVIDER || 'openai_legacy';
const provider = PROVIDERS[type];
if (!provider) throw new Error(`KIMI_PROVIDER: one of ${Object.keys(PROVIDERS).join(', ')}`);

const agent = {
  name: 'kimi',
  fixtureDir: 'kimi',
  version: kimiVersion(),
  mock: { api: provider.api },
  mockScenario: provider.errors,
  secondPrompt: true,
  setup(run) {
    const dir = path.join(run.home, '.kimi');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'config.toml'),
      [
        'default_model = "mock"',
        'telemetry = false',
        '[providers.mock]',
        `type = "${type}"`,
        `base_url = "${provider.base(run.mock.origin)}"`,
        'api_key = "sk-mock-not-a-real-key"',
        '[models.mock]',
        'provider = "mock"',
        `model = "${provider.model}"`,
        'max_context_size = 128000',
        '',
      ].join('\n'),
    );
    // `kimi acp` refuses session/new ("Authentication required") unless a
    // Kimi account token is stored, whatever the configured provider: a
    // placeholder that does not expire passes; it is never sent to the mock.
    fs.mkdirSync(path.join(dir, 'credentials'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'credentials', 'kimi-code.json'),
      JSON.stringify({ access_token: 'placeholder-not-a-token', refresh_token: '', expires_at: 4102444800, scope: '', token_type: 'Bearer' }),
    );
    return { command: path.join(venv, 'bin', 'kimi'), args: ['acp'], env: { COLUMNS: '200' } };
  },
};
if (process.env.RECORD === '1' && type !== 'openai_legacy') throw new Error('RECORD=1 records the openai_legacy runs only');
main(agent, ['plain', 'tool']);
