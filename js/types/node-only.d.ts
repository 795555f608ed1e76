
// ---- Node only: the command line that runs an agent's CLI ----
// From js/types/node-only.d.ts, appended to the Node build's declarations by
// scripts/finish-pkg.mjs: it runs in the Node-only module
// (agent_context_node_bg.wasm, compiled on its first call), which
// keeps it out of the module browsers download. Its types are declared in
// both builds.

/**
 * The command line that runs `agentType`'s CLI on an assembled prompt, which
 * always travels on stdin. Throws `AgentContextError` (`INVALID_INPUT`).
 *
 * ```js
 * const { assemble, buildCliInvocation } = require('agent-context');
 * const out = assemble('claude-code', input);
 * const run = buildCliInvocation('claude-code', out, {
 *   model: 'sonnet', sessionId: previous.sessionId, sandbox: 'workspace-write',
 *   systemPromptFile: path.join(os.tmpdir(), 'carol-system-prompt.md'),
 * });
 * for (const f of run.files) fs.writeFileSync(f.path, f.content);
 * const child = spawn(run.command, run.args, { cwd });
 * child.stdin.end(run.stdin);
 * ```
 */
export function buildCliInvocation(
  agentType: KnownAgentType,
  assemblerOutput: AssemblerOutput,
  options?: CliInvocationOptions,
): CliInvocation;
