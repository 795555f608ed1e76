// (a) A literal port of the seed designs (000, 001, 002): build every section,
// join, measure with Buffer.byteLength, and while over budget drop the oldest
// message and rebuild the whole prompt. Only the context-dropping step is
// ported (the seeds leave the rest of trimming to "a shared tool").

function body(systemInstruction, instructionFileText) {
  const parts = [];
  if (systemInstruction?.trim()) parts.push(systemInstruction.trim());
  if (instructionFileText?.trim()) parts.push(instructionFileText.trim());
  return parts.length > 0 ? parts.join('\n\n') : null;
}

const FORMATS = {
  'claude-code': { flag: true, team: '[TEAM_TASK]\n', ctx: '[CONTEXT]\n', msg: '[MESSAGE]\n', line: (m) => `- ${m.from}${m.to ? ` -> ${m.to}` : ''}: ${m.content}` },
  'openai-codex': { sys: '[SYSTEM]\n', team: '[TEAM_TASK]\n', ctx: '[CONTEXT]\n', msg: '[MESSAGE]\n', line: (m) => `- ${m.from}${m.to ? ` -> ${m.to}` : ''}: ${m.content}` },
  'google-gemini': { sys: 'Instructions:\n', team: 'Team Task:\n', ctx: 'Conversation so far:\n', msg: 'Your task:\n', line: (m) => `- ${m.from}: ${m.content}` },
  plain: { sys: '', team: '', ctx: '', msg: '', line: (m) => `${m.from}: ${m.content}` },
};

function build(f, input, contextMessages) {
  const sections = [];
  const instructions = body(input.systemInstruction, input.instructionFileText);
  if (instructions && !f.flag) sections.push(`${f.sys}${instructions}`);
  if (input.teamTask?.trim()) sections.push(`${f.team}${input.teamTask.trim()}`);
  if (contextMessages.length > 0) sections.push(`${f.ctx}${contextMessages.map(f.line).join('\n')}`);
  if (input.currentMessage?.trim()) sections.push(`${f.msg}${input.currentMessage.trim()}`);
  return { prompt: sections.join('\n\n'), systemFlag: f.flag ? instructions ?? undefined : undefined };
}

const size = (o) => Buffer.byteLength(o.prompt, 'utf8') + (o.systemFlag ? Buffer.byteLength(o.systemFlag, 'utf8') : 0);

export function assemble(agentType, input) {
  const f = FORMATS[agentType] ?? FORMATS.plain;
  let messages = input.contextMessages;
  let out = build(f, input, messages);
  while (size(out) > input.maxBytes && messages.length > 0) {
    messages = messages.slice(1);
    out = build(f, input, messages);
  }
  if (size(out) > input.maxBytes) throw new Error('over budget');
  return out;
}
