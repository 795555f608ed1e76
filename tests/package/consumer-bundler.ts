// A TypeScript user under moduleResolution "bundler" (no "node" condition):
// TypeScript cannot tell a Node bundle from a browser one there, so the
// default entry's types are the Node build's (a superset of the browser's);
// "agent-context/node" gives the same.
import init, { assemble, AgentContextError, runAgent, buildCliInvocation } from 'agent-context';
import { runGeminiTool, runAgent as runAgentFromNode } from 'agent-context/node';

await init();
const out = assemble('openai-codex', { contextMessages: [], currentMessage: 'hi' });
const isError = (e: unknown): boolean => e instanceof AgentContextError;
const run: typeof runGeminiTool = runGeminiTool;
const same: typeof runAgent = runAgentFromNode;
export { out, isError, run, same, buildCliInvocation };
