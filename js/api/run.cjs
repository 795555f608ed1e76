// The one run driver, Node only: an engine started for a session, a process
// or one run, over either protocol (`__Engine`, src/engine/, driven by
// ../host/engine-host.cjs). `runAgent` and the Gemini tool are one run: the engine
// made for it, its one prompt, close, its result (`__RunResult`). The core
// decides everything (the protocol, the options and defaults, the command
// line, what an attempt came to, the retries, the result); this file finds
// the executable, makes the run's own folder and home, reads the
// attachments and the working folder, and hands the engine what happened.
// Shipped as pkg/node/run.cjs.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { directoryProblem, launchFor } = require('../host/agent-process.cjs');
const { EngineHost } = require('../host/engine-host.cjs');
const { runFolderName, writeRunFiles, removeRunFolder, makeRunHome } = require('../host/option-check.cjs');
const { materialize } = require('../host/attachments.cjs');

let core;
function nodeModule() {
  core ??= require('../core/agent_context_node.cjs');
  return core;
}

function cdWhy(problem) {
  return problem === 'missing' ? 'does not exist' : problem === 'not_a_directory' ? 'is not a directory' : `cannot be used (${problem})`;
}

/** The agent as the core reads it: an object (a definition) as it is, anything else as a string. */
function agentArg(agent) {
  return agent !== null && typeof agent === 'object' && !Array.isArray(agent) ? agent : String(agent);
}

/**
 * Makes the engine (`make(Engine, runFolder)`), prepares what it plans
 * (the run's files and home, the working folder checked, the command
 * resolved) and returns `{ host, plan }`, or `{ failed }` (an
 * AgentContextError's message) when the input cannot be read. `env`: the
 * child's environment; `cdName`: how the working folder is named in
 * messages; `asIs`: a command found nowhere is spawned as it is, and
 * `onNotFound(message)` hears where it was looked for (the Gemini tool).
 */
async function prepare(make, { env, onPermission, onElicitation, onUpdate, onHostError, warn, cdName = 'options.cd', asIs = false, onNotFound, remote, ...remoteOptions }) {
  // An agent on another machine (`options.host`): through its channel (../remote/remote-start.cjs).
  if (remote != null) return require('../remote/remote-start.cjs').prepareRemote(make, { env, onPermission, onElicitation, onUpdate, onHostError, warn, remote, ...remoteOptions });
  // The run's own folder (the endpoint's settings, the agent's home, a
  // long system prompt, images given as data), removed when it closes.
  const runFolder = runFolderName();
  let engine;
  try {
    engine = make(nodeModule().__Engine, runFolder);
  } catch (err) {
    removeRunFolder(runFolder);
    if (err && err.name === 'AgentContextError') return { failed: err.message };
    throw err;
  }
  // Elicitations are advertised, and asked of the host, only with a handler.
  if (onElicitation !== undefined) engine.input({ type: 'answerElicitations', on: true }, Date.now());
  const plan = engine.plan();
  for (const message of plan.warnings ?? []) warn?.(message);
  const cwd = path.resolve(plan.cd);
  const problem = directoryProblem(cwd);
  const host = new EngineHost(engine, {
    env,
    onPermission,
    onElicitation,
    onUpdate,
    onHostError,
    runFolder,
    warn,
    cdGone: (dir) => {
      const gone = directoryProblem(dir);
      return gone ? `${cdName} ${cdWhy(gone)}: ${plan.cd}` : undefined;
    },
  });
  // An agent served elsewhere (options.transport): connected to, nothing started here.
  if (plan.transport) return require('../transport/transport-channel.cjs').prepareServed(host, plan, problem && `${cdName} ${cdWhy(problem)}: ${plan.cd}`);
  if (problem) {
    engine.input({ type: 'reject', message: `${cdName} ${cdWhy(problem)}: ${plan.cd}` }, Date.now());
    return { host, plan };
  }
  writeRunFiles(plan.files);
  const launch = await launchFor(plan.agentType, plan.command, env);
  if (!launch.found && asIs && launch.kind === 'command_not_found') {
    // Spawned as it is: its ENOENT says it is not there.
    onNotFound?.(launch.message);
    engine.launch(plan.command, plan.command, [], env, Date.now());
  } else if (!launch.found) engine.input({ type: 'cannotLaunch', spawnFailed: launch.kind === 'spawn_failed', message: launch.message }, Date.now());
  else {
    host.launchEnv = launch.env;
    const childEnv = Object.keys(launch.env).length ? { ...env, ...launch.env } : env;
    engine.launch(launch.path, launch.file, launch.args, childEnv, Date.now());
    // The agent's home of the run's own, from the child's environment.
    makeRunHome(plan.home, childEnv);
  }
  return { host, plan };
}

/** `options.cd` with links resolved: what the client fs methods compare with. */
function realCd(options) {
  const given = typeof options.cd === 'string' && options.cd !== '' ? path.resolve(options.cd) : null;
  return given && !directoryProblem(given) ? fs.realpathSync(given) : options.cd;
}

/**
 * `dirs` (a session's more folders) made absolute with links resolved, as
 * `cd` is; one that is not a folder here is `INVALID_INPUT` naming it
 * (`name`, `options.dirs`). Anything but an array of strings goes to the
 * core as it is (it names what is wrong). On another machine they are that
 * side's, left as given.
 */
function realDirs(dirs, name = 'options.dirs', there = false) {
  if (!Array.isArray(dirs) || there) return dirs;
  return dirs.map((dir, i) => {
    if (typeof dir !== 'string' || dir === '') return dir;
    const full = path.resolve(dir);
    const problem = directoryProblem(full);
    if (problem) throw require('../host/agent-process.cjs').inputError(`${name}[${i}] ${cdWhy(problem)}: ${dir}`);
    return fs.realpathSync(full);
  });
}

/**
 * An engine started for a session (`openAgentSession`) or, with `process`,
 * for an ACP process holding several (`openAgent`): `{ host, plan }` or
 * `{ failed }`. `rest`: the options without the functions and `env`.
 */
async function startEngine(agent, rest, { env, onPermission, onElicitation, onUpdate, onHostError, warn, process: several = false }) {
  const { command, onPermission: _p, onUpdate: _u, onElicitation: _el, host: given, ...named } = rest;
  const { options, remote } = served(named, given, env !== process.env);
  const asks = onPermission !== undefined;
  return prepare(
    // `there`: the folder on another machine (options.host).
    (Engine, runFolder, there) => {
      const given = { ...options, cd: there ? there.cd : realCd(options), runFolder };
      if (options.dirs != null) given.dirs = realDirs(options.dirs, 'options.dirs', !!there);
      // A process with sessions added hears every session's updates.
      return Engine.session(agentArg(agent), given, command ?? '', asks, several || onUpdate !== undefined, several);
    },
    { env, onPermission, onElicitation, onUpdate, onHostError, warn, remote, cd: options.cd },
  );
}

/**
 * `options` as the core reads them, and the `host` to reach: with a
 * `transport` (an agent served elsewhere) no host is reached, and the
 * options that only JS holds and that start an agent here (`host`, `env`)
 * are named for the core, which refuses them.
 */
function served(options, host, envGiven) {
  if (options.transport == null) return { options, remote: host };
  return { options: { ...options, ...(host != null && { host: true }), ...(envGiven && { env: true }) }, remote: undefined };
}

/** `onPermission`, checked. */
function checkPermissionHandler(options) {
  const { onPermission } = options;
  if (onPermission != null && typeof onPermission !== 'function') {
    const got = onPermission === null ? 'null' : typeof onPermission;
    throw require('../host/agent-process.cjs').inputError(`options.onPermission must be a function, got ${got}`);
  }
  return onPermission ?? undefined;
}

/** `onElicitation`, checked. */
function checkElicitationHandler(options) {
  const { onElicitation } = options;
  if (onElicitation != null && typeof onElicitation !== 'function') {
    const got = onElicitation === null ? 'null' : typeof onElicitation;
    throw require('../host/agent-process.cjs').inputError(`options.onElicitation must be a function, got ${got}`);
  }
  return onElicitation ?? undefined;
}

/** Free the engine once nothing more will come. */
function release(host) {
  host.closedPromise.then(() => host.engine.free());
}

/**
 * One run of `agent` on `request` (`{ prompt, systemFlag? }`) with
 * `options` (RunAgentOptions without the functions and `env`). `host`:
 * `signal`, `onEvent(event)`, `env`, `onPermission`, `onElicitation`,
 * `onHostError(err)` (what a callback threw: the run is stopped), `warn`,
 * `keepEvents` (the last attempt's events kept in the result), for the
 * Gemini tool `cdName`, `asIs`, `onNotFound`, and `answer(send)`: the
 * run's turns, `send(text, traceparent, n)` running turn `n` on the run's
 * session and resolving its `__RunResult` (by default the request's prompt,
 * once). Resolves what `answer` resolves (by default the `__RunResult`,
 * which the caller frees). A problem with the input resolves an
 * `invalid_params` result; nothing rejects.
 */
async function runOnce(agent, request, options, host) {
  const { signal, onEvent, env, onPermission, onHostError, keepEvents = false, store } = host;
  const answer = host.answer ?? ((send) => send(request.prompt, undefined, 0));
  const { __RunResult: RunResult } = nodeModule();
  const agentType = agentArg(agent);
  const { command, onPermission: _p, attachments: given, host: named, ...all } = options;
  const { options: rest, remote } = served(all, named, host.givenEnv != null);
  const acp = nodeModule().__Engine.runProtocol(agentType, rest) === 'acp';
  let attachments;
  const started = await prepare(
    // `there`: the folder and attachments on another machine (options.host).
    (Engine, runFolder, there) => {
      const files = {
        systemPromptFile: path.join(runFolder, 'system-prompt.md'),
        usageFile: path.join(runFolder, 'usage.json'),
        settingsFile: path.join(runFolder, 'settings.json'),
        runFolder,
      };
      // Over ACP images travel as data in the prompt; over the CLI they are
      // files on its command line.
      const read = there ? there.attachments : given == null || typeof rest.cd !== 'string' ? given : materialize(given, { cd: path.resolve(rest.cd), scratch: acp ? null : path.join(runFolder, 'attachments') });
      if (acp) attachments = read;
      const cd = there ? there.cd : acp ? realCd(rest) : rest.cd;
      const runOptions = { ...rest, cd, ...files, ...(acp || read === undefined ? {} : { attachments: read }) };
      if (rest.dirs != null) runOptions.dirs = realDirs(rest.dirs, 'options.dirs', !!there);
      return Engine.run(agentType, request, runOptions, command ?? '', onPermission !== undefined, keepEvents);
    },
    { ...host, onHostError: (err) => onHostError?.(err), remote, cd: rest.cd, attachments: given, scratch: !acp },
  );
  // A run that never started is its answer's only turn.
  const notRun = (result) => answer(async () => result);
  if (started.failed !== undefined) {
    return notRun(RunResult.invalid(agentType, started.failed.replace(/^invalid parameters: /, '')));
  }
  const { host: runHost } = started;
  const engine = runHost.engine;
  if (signal?.aborted) {
    engine.free();
    removeRunFolder(runHost.runFolder);
    await runHost.channel?.close();
    return notRun(RunResult.aborted(agentType));
  }
  // A run with a store is a conversation of one turn (a run resuming a
  // recorded agent session goes on with its conversation).
  const record = store ? await recordRun(store, agentType, rest, runHost, host).catch(async (err) => {
    engine.free();
    removeRunFolder(runHost.runFolder);
    await runHost.channel?.close();
    throw err;
  }) : undefined;
  let op;
  const onAbort = () => runHost.feed((e, now) => e.input({ type: 'abort', op }, now));
  runHost.onHostError = (err) => {
    onHostError?.(err);
    runHost.feed((e, now) => e.input({ type: 'abort', op }, now));
  };
  const { plan } = started;
  const limits = { idleMs: plan.idleTimeoutMs, maxMs: plan.maxDurationMs, maxRetries: plan.maxRetries, events: onEvent !== undefined };
  signal?.addEventListener('abort', onAbort, { once: true });
  // Turn `n` of the run (its first, then a corrective one) on the run's session.
  const send = async (text, traceparent, n) => {
    // A process per turn gets the turn's trace context in its environment.
    if (traceparent && !acp) runHost.env = { ...env, TRACEPARENT: traceparent };
    await runHost.run((now) => {
      op = engine.prompt([{ type: 'text', text }], { ...limits, traceparent }, now, undefined, n === 0 ? attachments : undefined);
      return op;
    }, onEvent);
    return engine.result();
  };
  try {
    return await answer(send);
  } finally {
    await runHost.run((now) => engine.input({ type: 'close' }, now));
    await runHost.closedPromise;
    signal?.removeEventListener('abort', onAbort);
    engine.free();
    // A store that did not take every line was told of already (the run's warning).
    await record?.close().catch(() => {});
  }
}

/** Values never written in a record: the endpoint's key and headers, the environment given. */
function secretsOf(env, endpoint) {
  const values = [];
  for (const v of Object.values(env ?? {})) if (typeof v === 'string') values.push(v);
  if (endpoint && typeof endpoint === 'object') {
    if (typeof endpoint.apiKey === 'string') values.push(endpoint.apiKey);
    for (const v of Object.values(endpoint.headers ?? {})) if (typeof v === 'string') values.push(v);
  }
  return values;
}

/**
 * The conversation a run is recorded in (`store`): a new one, or — with
 * `sessionId` — the one that agent session is the live end of
 * (`SESSION_MOVED` when it is not); its record kept by a RecordWriter.
 */
async function recordRun(store, agent, options, runHost, host) {
  const { RecordWriter } = require('../record/record-writer.cjs');
  const conversations = require('../record/conversations.cjs');
  const { __Conversation: Machine } = nodeModule();
  const setup = { id: require('node:crypto').randomUUID(), createdAt: Date.now(), agent, options: {} };
  const asked = options.sessionId != null ? String(options.sessionId) : undefined;
  const found = asked && (await conversations.findConversation(store, asked));
  let machine = new Machine(setup);
  let writer;
  if (found) {
    const taken = await conversations.takeConversation(store, found.conversationId);
    try {
      machine = Machine.restore(setup, taken.bytes, asked, Date.now());
    } catch (err) {
      await taken.writer.close();
      throw err;
    }
    if (machine.id === found.conversationId) writer = taken.writer;
    else await taken.writer.close();
  }
  machine.input({ type: 'start' }, Date.now());
  const open = machine.take().find((a) => a.type === 'openPart');
  machine.input({ type: 'opened', part: open.part }, Date.now());
  const record = new RecordWriter({ store, id: machine.id, header: JSON.parse(machine.headerLine), writer, onError: (err) => host.warn?.(`the run's record could not be written to its store: ${err?.message ?? err}`) });
  for (const a of machine.take()) if (a.type === 'write') record.add(a.lines);
  runHost.records.set(0, (lines) => {
    machine.lines(lines);
    record.add(lines);
  });
  const secrets = secretsOf(host.givenEnv, options.endpoint);
  runHost.feed((e, now) => e.input({ type: 'record', session: 0, start: open.record, secrets }, now));
  return record;
}

module.exports = { runOnce, startEngine, release, checkPermissionHandler, checkElicitationHandler, cdWhy, agentArg, secretsOf, realDirs };
