// A TypeScript user under moduleResolution "bundler" (no "node" condition):
// the default entry is the web build's types; the Node-only runGeminiTool
// comes from the "agent-context/node" entry.
import init, { assemble, AgentContextError } from 'agent-context';
import { runGeminiTool } from 'agent-context/node';

await init();
const out = assemble('openai-codex', { contextMessages: [], currentMessage: 'hi' });
const isError = (e: unknown): boolean => e instanceof AgentContextError;
const run: typeof runGeminiTool = runGeminiTool;
export { out, isError, run };
