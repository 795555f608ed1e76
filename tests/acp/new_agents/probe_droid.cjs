#!/usr/bin/env node
// Factory's Droid (npm `@factory/cli`, bin `droid`; the binary itself is in
// `@factory/cli-linux-x64`) over ACP (`droid exec --output-format acp`)
// against the OpenAI Chat Completions mock, as a BYOK custom model.
//
//   DROID_INSTALL=/path/to/folder node tests/acp/new_agents/probe_droid.cjs
//
// DROID_INSTALL is a folder where `npm install --prefix <folder>` put
// `@factory/cli` or just `@factory/cli-linux-x64` (the binary is looked for
// in either). PROBE_SCENARIOS=plain,tool,shell,error (default plain,tool);
// RECORD=1 saves tests/fixtures/acp/droid/<version>/<scenario>.jsonl.
// Offline setup: ~/.factory/settings.json with a `customModels` entry
// (provider `generic-chat-completion-api`, baseUrl …/v1) and the session's
// default model set to it (`sessionDefaultSettings.model`); a FACTORY_API_KEY
// of any value for ACP mode.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { main, packageVersion, installDir } = require('./probe_common.cjs');

const dir = installDir('DROID_INSTALL', 'npm install --prefix <folder> @factory/cli-linux-x64');
const platformDir = path.join(dir, 'node_modules', '@factory', 'cli-linux-x64');
const binary = path.join(platformDir, 'bin', 'droid');
const agent = {
  name: 'droid',
  fixtureDir: 'droid',
  version: packageVersion(platformDir),
  mock: { api: 'chat' },
  mockScenario: { error: 'error400' },
  secondPrompt: true,
  setup(run) {
    const factory = path.join(run.home, '.factory');
    fs.mkdirSync(factory, { recursive: true });
    const settings = {
      customModels: [
        {
          model: 'gpt-mock',
          displayName: 'Mock',
          baseUrl: `${run.mock.origin}/v1`,
          apiKey: 'sk-mock-not-a-real-key',
          provider: 'generic-chat-completion-api',
          maxOutputTokens: 4096,
        },
      ],
      // The custom model's id is `custom:<displayName>-<index>`.
      sessionDefaultSettings: { model: 'custom:Mock-0' },
      cloudSessionSync: false,
      ...JSON.parse(process.env.DROID_SETTINGS || '{}'),
    };
    fs.writeFileSync(path.join(factory, 'settings.json'), JSON.stringify(settings, null, 2));
    return { command: binary, args: ['exec', '--output-format', 'acp'],
      // ACP mode refuses session/new until signed in; any FACTORY_API_KEY
      // passes (droid exec -o json needs none).
      env: { FACTORY_API_KEY: 'fk-mock-not-a-real-key' },
    };
  },
};
main(agent, ['plain', 'tool']);
