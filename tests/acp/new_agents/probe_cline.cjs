#!/usr/bin/env node
// Cline CLI (npm `cline`, bin `cline`, a compiled Bun binary from
// `@cline/cli-linux-x64`) over ACP (`cline --acp`) against the OpenAI Chat
// Completions mock.
//
//   CLINE_INSTALL=/path/to/folder node tests/acp/new_agents/probe_cline.cjs
//
// CLINE_INSTALL is the folder of `npm install --prefix <folder> cline@<v>`.
// PROBE_SCENARIOS=plain,tool,shell,error (default plain,tool); RECORD=1 saves
// tests/fixtures/acp/cline/<version>/<scenario>.jsonl.
// Offline setup: the provider written to ~/.cline/data/settings/providers.json
// (what `cline auth -p openai-compatible -k … -m … -b …` writes), plus
// CLINE_API_KEY (any value), CLINE_PROVIDER, CLINE_MODEL for ACP mode.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { main, packageVersion, installDir } = require('./probe_common.cjs');

const dir = installDir('CLINE_INSTALL', 'npm install --prefix <folder> cline');
const agent = {
  name: 'cline',
  fixtureDir: 'cline',
  version: packageVersion(path.join(dir, 'node_modules', 'cline')),
  mock: { api: 'chat' },
  mockScenario: { error: 'error400' },
  secondPrompt: true,
  setup(run) {
    const settings = path.join(run.home, '.cline', 'data', 'settings');
    fs.mkdirSync(settings, { recursive: true });
    fs.writeFileSync(
      path.join(settings, 'providers.json'),
      JSON.stringify({
        version: 1,
        lastUsedProvider: 'openai-compatible',
        modes: {},
        providers: {
          'openai-compatible': {
            settings: { provider: 'openai-compatible', apiKey: 'sk-mock-not-a-real-key', model: 'gpt-mock', baseUrl: `${run.mock.origin}/v1` },
            updatedAt: '2026-01-01T00:00:00.000Z',
            tokenSource: 'manual',
          },
        },
      }),
    );
    return { command: path.join(dir, 'node_modules', '.bin', 'cline'), args: ['--acp'],
      // ACP mode refuses session/new unless one of its sign-in providers
      // (cline, cline-pass, openai-codex) is configured or CLINE_API_KEY is
      // set; CLINE_PROVIDER / CLINE_MODEL then pick the configured provider.
      env: { CLINE_API_KEY: 'unused-not-a-real-key', CLINE_PROVIDER: 'openai-compatible', CLINE_MODEL: 'gpt-mock' },
    };
  },
};
main(agent, ['plain', 'tool']);
