// The fast path of `assemble`, appended by scripts/build.sh to both builds.
//
// Copying strings into WebAssembly memory and the prompt back out costs more
// than assembling it. So for the common case this sends the Rust core only
// sizes — the bounds [n, 3n] on the UTF-8 size of an n-unit string, and exact
// byte counts only when the core asks for them — and the core decides which
// messages to keep (src/prompt/size_plan/). The prompt is then joined from the
// caller's own strings with the layout's literals, which also come from the
// core, and so do the budget's default and normalisation and cache-stable
// trimming (the core plans with the caller's `maxBytes`, `cacheStable` and
// `cacheBlock` as given). Anything else (a value of the wrong type, a getter,
// debug logging, a message or file that must be cut, a budget that cannot be
// met, a bad option) goes to the full Rust path, which gives the exact result
// or error.
//
// A lone surrogate in a string (half of a UTF-16 pair) becomes U+FFFD, the 3
// bytes the budget counted, as the full path writes it.

function createFastPath(raw) {
  'use strict';
  // What the core's planner answers first (src/wasm/fast_path_api.rs).
  const { Keep: KEEP, More: MORE, Exact: EXACT } = raw.PlanStep;
  const SEPARATOR = '\n\n';
  const FALLBACK = {}; // a unique value: "let the full path do it"
  const hasBuffer = typeof Buffer === 'function' && typeof Buffer.byteLength === 'function';
  // A lone surrogate (half of a UTF-16 pair) has no UTF-8 form: the core,
  // which reads each string as UTF-8, holds U+FFFD in its place, and so does
  // the output here, string by string, so that every path gives the same
  // string (the same UTF-8 length, 3 bytes, as measured). Every string of the
  // prompt lies between the layout's literals, so no pair is made or broken
  // where they meet. Checking a string with a character above U+00FF costs
  // about a nanosecond per unit in Node 20, more than the rest of the call;
  // so a string equal to one the last call found well formed is not checked
  // again: the last call's kept messages and each field's last string are
  // kept for that (the caller's own strings, held until the next call).
  const isWellFormed = typeof ''.isWellFormed === 'function'
    ? (s) => s.isWellFormed()
    : (s) => !/[\uD800-\uDFFF]/u.test(s);
  const toWellFormed = typeof ''.toWellFormed === 'function'
    ? (s) => s.toWellFormed()
    : (s) => s.replace(/[\uD800-\uDFFF]/gu, '\uFFFD');

  const wellFormedFields = ['', '', '', '']; // system, file, team, message
  /** Field `k`'s string `s`, its lone surrogates as U+FFFD. */
  function wellFormedField(k, s) {
    if (s === wellFormedFields[k]) return s;
    if (!isWellFormed(s)) return toWellFormed(s);
    wellFormedFields[k] = s;
    return s;
  }

  // The last call's kept messages, newest first, all well formed (none
  // when one was not).
  let lastFrom = [];
  let lastTo = [];
  let lastContent = [];
  let lastKept = 0;
  /** The newest `kept` messages' strings, their lone surrogates as U+FFFD (in place). */
  function wellFormedMessages(from, to, content, kept) {
    // Where the last call's newest message is now: the messages sent since
    // come before it (-1: not among the newest few).
    let shift = -1;
    for (let r = 0; lastKept > 0 && r < kept && r < 16; r++) {
      if (content[r] === lastContent[0] && from[r] === lastFrom[0] && to[r] === lastTo[0]) {
        shift = r;
        break;
      }
    }
    let allWellFormed = true;
    for (let j = 0; j < kept; j++) {
      const k = j - shift;
      if (shift >= 0 && k >= 0 && k < lastKept && content[j] === lastContent[k] && from[j] === lastFrom[k] && to[j] === lastTo[k]) continue;
      if (isWellFormed(from[j]) && isWellFormed(to[j]) && isWellFormed(content[j])) continue;
      allWellFormed = false;
      from[j] = toWellFormed(from[j]);
      to[j] = toWellFormed(to[j]);
      content[j] = toWellFormed(content[j]);
    }
    from.length = to.length = content.length = kept;
    lastFrom = from;
    lastTo = to;
    lastContent = content;
    lastKept = allWellFormed ? kept : 0;
  }

  function utf8Length(s) {
    if (hasBuffer) return Buffer.byteLength(s, 'utf8');
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }

  // The registered agents' layouts and the known input keys, asked of the
  // core by scripts/finish-pkg.mjs when the package was built (the same
  // answers as at run time, with no wasm call, nor its first compile, on a
  // new process's first call); any other agent type asks the core here.
  const layouts = new Map(Object.entries(raw.preset.layouts));
  function layout(agentType) {
    let info = layouts.get(agentType);
    if (info === undefined) {
      // { id, warning, inFlag, instructions, team, context, prefix, arrow, message }
      info = JSON.parse(raw.layoutInfo(agentType));
      if (layouts.size < 64) layouts.set(agentType, info);
    }
    return info;
  }

  function debugFromEnv() {
    if (typeof process !== 'object' || process === null || typeof process.env !== 'object') return false;
    const d = process.env.DEBUG;
    return d === '1' || d === 'true';
  }

  /** The trimmed string, '' for missing/null, or FALLBACK for anything else. */
  function scalar(v) {
    if (v === undefined || v === null) return '';
    return typeof v === 'string' ? v.trim() : FALLBACK;
  }

  const consoleWarn = (m) => console.warn(m);
  const DEFAULTS = { warn: consoleWarn, cacheStable: undefined, cacheBlock: undefined };
  const present = (v) => v !== undefined && v !== null;

  /**
   * `{ warn, cacheStable, cacheBlock }` from the options — how warnings are
   * reported, and the cache options for the core to read (undefined when
   * not given) — or FALLBACK when the options need the full path.
   */
  function settings(options) {
    if (options === undefined || options === null) return debugFromEnv() ? FALLBACK : DEFAULTS;
    if (typeof options !== 'object' || Array.isArray(options)) return FALLBACK;
    const debug = options.debug;
    if (debug === undefined || debug === null) {
      if (debugFromEnv()) return FALLBACK;
    } else if (debug !== false) {
      return FALLBACK; // debug logging, or a bad value the full path reports
    }
    let cacheStable = options.cacheStable;
    let cacheBlock = options.cacheBlock;
    if (!present(cacheStable)) cacheStable = undefined;
    else if (typeof cacheStable !== 'boolean') return FALLBACK;
    if (!present(cacheBlock)) cacheBlock = undefined;
    else if (typeof cacheBlock !== 'number') return FALLBACK;
    const logger = options.logger;
    let warn;
    if (logger === undefined || logger === null) warn = consoleWarn;
    else if (typeof logger === 'function') warn = (m) => logger(m, 'warn');
    else if (typeof logger === 'object' && typeof logger.warn === 'function') warn = (m) => logger.warn(m);
    else return FALLBACK;
    return { warn, cacheStable, cacheBlock };
  }

  // The sizes go straight into the core's memory, the plan area
  // (src/wasm/fast_path_api.rs): the answer's two numbers, then [lo, hi] of
  // the four fields, then of each message's from, to and content.
  const ANSWER = 2;
  let areaAddress = 0;
  let areaLength = 0;
  let area = null;
  // Counts the plans begun: a getter that reads a message may run another
  // call, which writes the area too (or grows the memory, which leaves a
  // view empty); the plan then goes to the full path.
  let plans = 0;
  /** A view of the plan area, made to hold at least `length` numbers. */
  function planArea(length) {
    if (length > areaLength) {
      areaLength = Math.max(length, 2 * areaLength, ANSWER + 8 + 6 * 64);
      areaAddress = raw.planArea(areaLength);
      area = null;
    }
    // A view is emptied when the memory grows.
    if (area === null || area.length === 0) area = new Float64Array(raw.memory().buffer, areaAddress, areaLength);
    return area;
  }

  /**
   * Assembles for `agentType` from the fields given with the cache options
   * of `settings`: `{ output, warning }` (the unknown-agent warning or
   * null), or FALLBACK.
   */
  function run(agentType, fields, cache) {
    const system = scalar(fields.system);
    const file = scalar(fields.file);
    const team = scalar(fields.team);
    const message = scalar(fields.message);
    if (system === FALLBACK || file === FALLBACK || team === FALLBACK || message === FALLBACK) return FALLBACK;
    const budget = fields.maxBytes; // the core applies the default and checks it
    if (budget !== undefined && typeof budget !== 'number') return FALLBACK;
    const list = fields.messages;
    if (!Array.isArray(list)) return FALLBACK;
    const L = layout(agentType);

    const scalars = [system, file, team, message];
    const total = list.length;
    let want = Math.min(total, 64);
    const plan = ++plans;
    let sizes = planArea(ANSWER + 8 + 6 * want);
    for (let k = 0; k < 4; k++) {
      sizes[ANSWER + 2 * k] = scalars[k].length;
      sizes[ANSWER + 2 * k + 1] = 3 * scalars[k].length;
    }
    const from = [];
    const to = [];
    const content = [];
    let read = 0;
    let exactUpTo = 0;
    for (let round = 0; round < 200; round++) {
      // Read messages newest first, up to `want`.
      sizes = planArea(ANSWER + 8 + 6 * want);
      for (; read < want; read++) {
        const m = list[total - 1 - read];
        if (m === null || typeof m !== 'object' || Array.isArray(m)) return FALLBACK;
        const f = m.from;
        let t = m.to;
        const c = m.content;
        if (typeof f !== 'string' || typeof c !== 'string') return FALLBACK;
        if (t === undefined || t === null) t = '';
        else if (typeof t !== 'string') return FALLBACK;
        from.push(f);
        to.push(t);
        content.push(c);
        const at = ANSWER + 8 + 6 * read;
        sizes[at] = f.length;
        sizes[at + 1] = 3 * f.length;
        sizes[at + 2] = t.length;
        sizes[at + 3] = 3 * t.length;
        sizes[at + 4] = c.length;
        sizes[at + 5] = 3 * c.length;
      }
      if (plan !== plans || sizes.length === 0) return FALLBACK;
      const step = raw.planContext(L.id, budget, 8 + 6 * read, total, cache.cacheStable, cache.cacheBlock);
      sizes = planArea(0);
      switch (step) {
        case KEEP: // keep the newest sizes[0]
          return { output: render(L, system, file, team, message, from, to, content, sizes[0]), warning: L.warning };
        case MORE: // read up to sizes[0] of the newest
          want = Math.min(total, sizes[0]);
          break;
        case EXACT: // exact sizes of the scalars (sizes[0] is 1) and the newest sizes[1] messages
          if (sizes[0]) {
            for (let k = 0; k < 4; k++) sizes[ANSWER + 2 * k] = sizes[ANSWER + 2 * k + 1] = utf8Length(scalars[k]);
          }
          for (const upTo = Math.min(sizes[1], read); exactUpTo < upTo; exactUpTo++) {
            const at = ANSWER + 8 + 6 * exactUpTo;
            sizes[at] = sizes[at + 1] = utf8Length(from[exactUpTo]);
            sizes[at + 2] = sizes[at + 3] = to[exactUpTo].length === 0 ? 0 : utf8Length(to[exactUpTo]);
            sizes[at + 4] = sizes[at + 5] = utf8Length(content[exactUpTo]);
          }
          break;
        default: // Engine: the full path decides
          return FALLBACK;
      }
    }
    return FALLBACK;
  }

  // The prompt is one join of one string per section or context line (a
  // line's own pieces concatenated), with '\n' between items and one more
  // before each section's first item: measured against a join of sections
  // whose context was concatenated first (3.4 -> 1.9 us for the typical
  // call's render) and a join of every piece apart (3.0 us);
  // docs/history/performance-passes.md.
  function render(L, system, file, team, message, from, to, content, kept) {
    const items = [];
    if (system) system = wellFormedField(0, system);
    if (file) file = wellFormedField(1, file);
    const instructions = system ? (file ? system + SEPARATOR + file : system) : file;
    let systemFlag;
    if (instructions) {
      if (L.inFlag) systemFlag = instructions;
      else items.push(L.instructions + instructions);
    }
    if (team) items.push((items.length > 0 ? '\n' : '') + L.team + wellFormedField(2, team));
    if (kept > 0) {
      wellFormedMessages(from, to, content, kept);
      let head = (items.length > 0 ? '\n' : '') + L.context;
      for (let j = kept - 1; j >= 0; j--) {
        const t = to[j];
        items.push(head + L.prefix + from[j] + (L.arrow && t.length > 0 ? ' -> ' + t : '') + ': ' + content[j]);
        head = '';
      }
    }
    if (message) items.push((items.length > 0 ? '\n' : '') + L.message + wellFormedField(3, message));
    return { prompt: items.join('\n'), systemFlag };
  }

  /**
   * Runs `attempt` (which gives `{ settings, fields, agentType }` or
   * FALLBACK); on FALLBACK or anything thrown the full path decides. The
   * warning is given once, after the fast path has succeeded.
   */
  function fastOr(attempt, full) {
    let plan;
    let result;
    try {
      plan = attempt();
      result = plan === FALLBACK ? FALLBACK : run(plan.agentType, plan.fields, plan.settings);
    } catch {
      result = FALLBACK;
    }
    if (result === FALLBACK) return full();
    if (plan.settings.warn !== null && result.warning !== null) plan.settings.warn(result.warning);
    return result.output;
  }

  const assemblerFields = (input) => ({
    system: input.systemInstruction, file: input.instructionFileText, team: input.teamTask,
    message: input.currentMessage, maxBytes: input.maxBytes, messages: input.contextMessages,
  });
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

  // An input with a key the core does not know goes to the full path, where
  // the core words the warning (src/formats/input_keys.rs). 0: AssemblerInput, 1: PromptInput.
  let knownKeys = null;
  function onlyKnownKeys(input, which) {
    if (knownKeys === null) knownKeys = raw.preset.knownInputKeys.map((keys) => new Set(keys));
    const known = knownKeys[which];
    for (const key in input) if (!known.has(key)) return false;
    return true;
  }

  function assemble(agentType, input, options) {
    return fastOr(() => {
      if (typeof agentType !== 'string' || !isObject(input) || !onlyKnownKeys(input, 0)) return FALLBACK;
      const s = settings(options);
      return s === FALLBACK ? FALLBACK : { agentType, settings: s, fields: assemblerFields(input) };
    }, () => raw.assemble(agentType, input, options));
  }

  function buildPrompt(input, options) {
    return fastOr(() => {
      if (!isObject(input) || typeof input.agentType !== 'string' || !onlyKnownKeys(input, 1)) return FALLBACK;
      const s = settings(options);
      if (s === FALLBACK) return FALLBACK;
      const fields = {
        system: input.systemInstructionText, file: input.instructionFileText, team: input.teamTask,
        message: input.message, maxBytes: input.maxBytes, messages: input.contextMessages,
      };
      return { agentType: input.agentType, settings: s, fields };
    }, () => raw.buildPrompt(input, options));
  }

  // The classes take no options: no warning (a built-in agent type), no cache options.
  const CLASS_SETTINGS = { warn: null, cacheStable: undefined, cacheBlock: undefined };

  /** `new X().assemble(input)` for a built-in assembler class serving `agentType`. */
  function patchClass(Class, agentType) {
    const original = Class.prototype.assemble;
    Class.prototype.assemble = function assemble(input) {
      return fastOr(
        () => (isObject(input) && !debugFromEnv() && onlyKnownKeys(input, 0) ? { agentType, settings: CLASS_SETTINGS, fields: assemblerFields(input) } : FALLBACK),
        () => original.call(this, input),
      );
    };
  }

  return { assemble, buildPrompt, patchClass };
}

// The fast path of `buildLlmMessagesFromConversation`: the core decides which
// messages go out (__planMessages) and composes the system prompt; the
// messages are converted here from the caller's own objects (content parts
// are passed through as the same objects). Anything unusual goes to the full
// Rust path, which gives the exact result or error.
function createFastBuilder(raw) {
  'use strict';
  const FALLBACK = {};
  // A switch: a keyed lookup in an object literal is a hash lookup per message.
  function roleCode(role) {
    switch (role) {
      case 'user':
        return 0;
      case 'assistant':
        return 1;
      case 'system':
        return 2;
      case 'tool':
        return 3;
      default:
        return -1;
    }
  }
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const present = (v) => v !== undefined && v !== null;

  /** A tool call in OpenAI's form, or FALLBACK. */
  function toolCall(call) {
    if (!isObject(call) || typeof call.id !== 'string') return FALLBACK;
    let holder = call;
    if (present(call.function)) {
      if (!isObject(call.function)) return FALLBACK;
      holder = call.function;
    }
    if (typeof holder.name !== 'string') return FALLBACK;
    const args = holder.arguments;
    let text;
    if (!present(args)) text = '{}';
    else if (typeof args === 'string') text = args;
    else if (typeof args === 'object' || typeof args === 'number' || typeof args === 'boolean') text = JSON.stringify(args);
    else return FALLBACK;
    return { id: call.id, type: 'function', function: { name: holder.name, arguments: text } };
  }

  /**
   * Checks one message and converts it when it may go out. Returns its code —
   * role (0 user, 1 assistant, 2 system, 3 tool) plus 4 when excluded — and
   * puts the converted message in `out[i]`; -1 when the full path must judge.
   */
  function checkAndConvert(m, out, i) {
    if (!isObject(m)) return -1;
    const role = m.role;
    const code = roleCode(role);
    if (code < 0) return -1;
    const content = m.content;
    if (typeof content !== 'string') {
      if (Array.isArray(content)) {
        for (const part of content) if (!isObject(part) || typeof part.type !== 'string') return -1;
      } else if (present(content) || code !== 1) {
        return -1;
      }
    }
    const name = m.name;
    if (present(name) && typeof name !== 'string') return -1;
    const calls = present(m.toolCalls) ? m.toolCalls : m.tool_calls;
    if (present(calls) && (!Array.isArray(calls) || (calls.length > 0 && code !== 1))) return -1;
    const callId = present(m.toolCallId) ? m.toolCallId : m.tool_call_id;
    if (present(callId) ? typeof callId !== 'string' || code !== 3 : code === 3) return -1;
    const include = m.includeInContext;
    if (present(include) && typeof include !== 'boolean') return -1;
    if (include === false) return code + 4;
    if (code === 2) return code;
    const converted = { role, content: present(content) ? content : null };
    if (present(name)) converted.name = name;
    if (present(calls) && calls.length > 0) {
      const list = new Array(calls.length);
      for (let k = 0; k < calls.length; k++) {
        list[k] = toolCall(calls[k]);
        if (list[k] === FALLBACK) return -1;
      }
      converted.tool_calls = list;
    }
    if (present(callId)) converted.tool_call_id = callId;
    out[i] = converted;
    return code;
  }

  // The last system prompt composed, keyed by the JSON of everything the
  // composer reads (the full path serialises exactly these parts too).
  let lastKey = null;
  let lastPrompt = null;
  function composeSystemPrompt(options, extras) {
    const key = JSON.stringify([options.mode, options.agent, options.toolPolicy, options.runContext, present(extras) ? extras.templates : null]);
    if (key !== lastKey) {
      lastPrompt = raw.composeSystemPrompt(options, extras);
      lastKey = key;
    }
    return lastPrompt;
  }

  function attempt(options, extras) {
    if (!isObject(options) || !Array.isArray(options.messages)) return FALLBACK;
    const settings = options.settings;
    let include = true;
    let max = -1;
    if (present(settings)) {
      if (!isObject(settings)) return FALLBACK;
      if (present(settings.includeSystemPrompt)) {
        if (typeof settings.includeSystemPrompt !== 'boolean') return FALLBACK;
        include = settings.includeSystemPrompt;
      }
      if (present(settings.maxMessages)) {
        const n = settings.maxMessages;
        if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 0) return FALLBACK;
        max = n;
      }
    }
    const list = options.messages;
    const codes = new Uint8Array(list.length);
    const converted = new Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const code = checkAndConvert(list[i], converted, i);
      if (code < 0) return FALLBACK;
      codes[i] = code;
    }
    // The prompt is composed (and the prompt options checked) by the core
    // even when it is not sent, as the full path does.
    const system = composeSystemPrompt(options, extras);
    const plan = raw.planMessages(codes, max);
    const first = include ? 1 : 0;
    const messages = new Array(first + plan.length - 2);
    if (include) messages[0] = { role: 'system', content: system };
    for (let k = 2; k < plan.length; k++) messages[first + k - 2] = converted[plan[k]];
    const metadata = {
      inputCount: list.length,
      outputCount: messages.length,
      filteredCount: plan[0],
      systemPromptIncluded: include,
      systemPromptLength: include ? system.length : 0,
    };
    if (max >= 0) metadata.trimmedCount = plan[1];
    return { messages, metadata };
  }

  function buildLlmMessagesFromConversation(options, extras) {
    let result;
    try {
      result = attempt(options, extras);
    } catch {
      result = FALLBACK;
    }
    return result === FALLBACK ? raw.buildLlmMessagesFromConversation(options, extras) : result;
  }

  return { buildLlmMessagesFromConversation };
}
