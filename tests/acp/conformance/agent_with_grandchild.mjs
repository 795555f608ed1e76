#!/usr/bin/env node
// The SDK reference agent (./sdk_agent.mjs) that first starts a process of
// its own which outlives it unless its process group is ended: for the
// test that close() resolves only once the agent's whole tree is gone.
import { spawn } from 'node:child_process';

spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', 'grandchild-of-acp-agent'], { stdio: 'ignore' });
await import('./sdk_agent.mjs');
