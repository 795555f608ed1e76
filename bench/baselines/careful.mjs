// (b) A careful pure-JS assembler: every byte length computed once, one
// linear pass to pick the newest messages that fit, one join. It covers what
// the benchmark's scenarios need (formats and dropping whole messages) and
// gives up (throws) where the package would cut the message or the file.

const LAYOUTS = {
  'claude-code': { flag: true, team: '[TEAM_TASK]\n', ctx: '[CONTEXT]\n', msg: '[MESSAGE]\n', prefix: '- ', arrow: true },
  'openai-codex': { sys: '[SYSTEM]\n', team: '[TEAM_TASK]\n', ctx: '[CONTEXT]\n', msg: '[MESSAGE]\n', prefix: '- ', arrow: true },
  'google-gemini': { sys: 'Instructions:\n', team: 'Team Task:\n', ctx: 'Conversation so far:\n', msg: 'Your task:\n', prefix: '- ', arrow: false },
  plain: { sys: '', team: '', ctx: '', msg: '', prefix: '', arrow: false },
};

const bytes = (s) => Buffer.byteLength(s, 'utf8');
const text = (v) => (typeof v === 'string' ? v.trim() : '');

export function assemble(agentType, input) {
  const L = LAYOUTS[agentType] ?? LAYOUTS.plain;
  const system = text(input.systemInstruction);
  const file = text(input.instructionFileText);
  const team = text(input.teamTask);
  const message = text(input.currentMessage);
  const instructions = system && file ? `${system}\n\n${file}` : system || file;
  const budget = input.maxBytes ?? 786432;

  const lines = input.contextMessages.map((m) => {
    const to = L.arrow && m.to ? ` -> ${m.to}` : '';
    return `${L.prefix}${m.from}${to}: ${m.content}`;
  });
  const lineBytes = lines.map(bytes);

  let fixed = 0;
  let sections = 0;
  const add = (n) => {
    fixed += n;
    sections += 1;
  };
  let flag = 0;
  if (instructions) {
    if (L.flag) flag = bytes(instructions);
    else add(bytes(L.sys) + bytes(instructions));
  }
  if (team) add(bytes(L.team) + bytes(team));
  if (message) add(bytes(L.msg) + bytes(message));
  const withoutContext = fixed + flag + Math.max(0, sections - 1) * 2;
  if (withoutContext > budget) throw new Error('the message would have to be cut');

  // Newest first: keep what fits.
  let used = withoutContext + bytes(L.ctx) + (sections > 0 ? 2 : 0);
  let first = lines.length;
  for (let i = lines.length - 1; i >= 0; i--) {
    const next = used + lineBytes[i] + (first < lines.length ? 1 : 0);
    if (next > budget) break;
    used = next;
    first = i;
  }

  const parts = [];
  if (instructions && !L.flag) parts.push(L.sys + instructions);
  if (team) parts.push(L.team + team);
  if (first < lines.length) parts.push(L.ctx + lines.slice(first).join('\n'));
  if (message) parts.push(L.msg + message);
  return { prompt: parts.join('\n\n'), systemFlag: L.flag && instructions ? instructions : undefined };
}
