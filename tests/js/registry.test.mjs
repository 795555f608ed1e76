// Every list of agents outside the core's registry derives from it or agrees
// with it (SPEC §9): the package's classes (with their fast path), the
// TypeScript union, the command's help, the parsers and command lines.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const pkg = require('agent-context');
const root = fileURLToPath(new URL('../..', import.meta.url));
const agents = pkg.knownAgents();
const types = agents.map((a) => a.agentType);

test('knownAgents lists each registered agent once, with what it needs', () => {
  assert.ok(agents.length >= 3);
  assert.equal(new Set(types).size, types.length);
  assert.equal(new Set(agents.map((a) => a.mcpTool)).size, agents.length);
  for (const agent of agents) {
    assert.match(agent.agentType, /^[a-z]+(-[a-z]+)*$/);
    for (const key of ['name', 'command', 'package', 'mcpTool']) assert.equal(typeof agent[key], 'string', `${agent.agentType}.${key}`);
    assert.ok(['flag', 'inline'].includes(agent.systemPrompt));
  }
});

test('the TypeScript union KnownAgentType is the registry', () => {
  for (const dts of ['pkg/node/agent_context.d.ts', 'pkg/web/agent_context.d.ts']) {
    const text = readFileSync(`${root}${dts}`, 'utf8');
    const union = text.match(/export type KnownAgentType = ([^;]+);/);
    assert.ok(union, `${dts} declares KnownAgentType`);
    const members = [...union[1].matchAll(/'([^']+)'/g)].map((m) => m[1]);
    assert.deepEqual(members, types, dts);
  }
});

test('each assembler class is exported, reports its agent type and has the fast path', () => {
  for (const { agentType, assemblerClass, systemPrompt } of agents.filter((a) => a.assemblerClass)) {
    const Class = pkg[assemblerClass];
    assert.equal(typeof Class, 'function', assemblerClass);
    assert.equal(new Class().getAgentType(), agentType);
    // The fast path replaces the generated method (scripts/finish-pkg.mjs, js/web/fast-path.js).
    assert.match(Class.prototype.assemble.toString(), /fastOr/, `${assemblerClass} has the fast path`);
    const out = new Class().assemble({ contextMessages: [], currentMessage: 'Hi', teamTask: null, systemInstruction: 'Be brief' });
    assert.equal(out.systemFlag !== undefined, systemPrompt === 'flag', agentType);
    assert.deepEqual(out, pkg.assemble(agentType, { contextMessages: [], currentMessage: 'Hi', teamTask: null, systemInstruction: 'Be brief' }));
  }
});

test('every known agent parses, builds a command line (or says it is driven over ACP only), and assembles without a warning', () => {
  for (const { agentType, command, protocols, name } of agents) {
    const warnings = [];
    const out = pkg.assemble(agentType, pkg.sampleInput(), { logger: (m) => warnings.push(m) });
    assert.deepEqual(warnings, [], agentType);
    if (protocols.includes('cli')) assert.equal(pkg.buildCliInvocation(agentType, out).command, command);
    else {
      assert.deepEqual(protocols, ['acp'], agentType);
      assert.throws(() => pkg.buildCliInvocation(agentType, out), (err) => err.code === 'INVALID_INPUT' && err.message.startsWith(`agentType '${agentType}': ${name} is driven over the Agent Client Protocol only`));
    }
    assert.equal(pkg.parseAgentOutput(agentType, '').status, 'incomplete', agentType);
  }
  assert.ok(agents.length >= 8, `${agents.length} agents`);
});

test("the command's help and demo list every known agent", () => {
  const bin = `${root}bin/agent-context.js`;
  const help = (command) => execFileSync(process.execPath, [bin, command, '--help'], { encoding: 'utf8' });
  const agentLine = (text) => text.split('\n').find((l) => l.trimStart().startsWith('--agent TYPE'));
  assert.equal(agentLine(help('assemble')).replace(/^\s*--agent TYPE\s+/, ''), `${types.join(', ')}, or any other name (plain text)`);
  assert.equal(agentLine(help('parse')).replace(/^\s*--agent TYPE\s+/, ''), types.join(', '));
  const demo = execFileSync(process.execPath, [bin, 'demo'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const shown = [...demo.matchAll(/^===== (\S+) /gm)].map((m) => m[1]);
  assert.deepEqual(shown.slice(0, types.length), types);
});

test("the command's parse refuses an unknown agent type, and assemble says it is not a known one", () => {
  const bin = `${root}bin/agent-context.js`;
  const run = (args, input) => spawnSync(process.execPath, [bin, ...args], { input, encoding: 'utf8' });
  const parse = run(['parse', '--agent', 'gemini'], '{"type":"init"}\n');
  assert.equal(parse.status, 2);
  const names = types.map((t) => `'${t}'`);
  assert.equal(parse.stderr, `agent-context: INVALID_INPUT: agentType must be ${names.slice(0, -1).join(', ')} or ${names.at(-1)} to parse its output, got "gemini"\n`);
  const assemble = run(['assemble', '--agent', 'aider'], JSON.stringify({ contextMessages: [], currentMessage: 'hi', teamTask: null }));
  assert.equal(assemble.status, 0);
  assert.equal(assemble.stdout.trim(), 'hi');
  assert.ok(assemble.stderr.includes(`"aider" is not a known agent (${types.join(', ')})`), assemble.stderr);
});
