// A TypeScript user of the installed package (CommonJS), checked with tsc --strict.
import agentContext = require('agent-context');
const output: agentContext.AssemblerOutput = agentContext.assemble('google-gemini', { contextMessages: [], currentMessage: 'hi', teamTask: null });
export const prompt: string = output.prompt;
