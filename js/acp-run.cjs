// runAgent over the Agent Client Protocol (SPEC §12), Node only. Shipped as
// pkg/node/acp-run.cjs; ./agent-run.cjs hands a call with
// `protocol: 'acp'` here, and the official SDK (`@agentclientprotocol/sdk`,
// its `/unstable` entry) is imported on the first such call.
//
// Every decision is the core's (`__AcpRunner`, src/acp/): the command and
// its arguments, the session request from the agent's capabilities, the
// params (Claude's `_meta.systemPrompt.append`), each permission answer,
// which paths the client `fs` methods may touch, the answer to requests it
// does not serve, what the attempt came to and the AgentRun. This file
// spawns (./spawn-agent.cjs, stdin kept open), moves the JSON-RPC messages
// with the SDK, tees the agent's stdout bytes to the core's parser, does the
// file IO the core allowed, and times: idle timeout, maxDuration and abort
// send `session/cancel`, then kill the tree if the turn has not ended within
// the grace the core gives (5 s).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnAgent } = require('./spawn-agent.cjs');
const { directoryProblem, sleep, launchFor, inputError } = require('./agent-process.cjs');


let sdkPromise;
/** The SDK, imported once (ESM), on the first ACP run. */
function loadSdk() {
  sdkPromise ??= import('@agentclientprotocol/sdk/unstable');
  return sdkPromise;
}

let AcpRunner;
function loadRunner() {
  AcpRunner ??= require('./agent_context_gemini_tool.js').__AcpRunner;
  return AcpRunner;
}

/** A JSON-RPC error the core wrote (`{ code, message, data }`), thrown to the agent. */
function rpcError(sdk, error) {
  return new sdk.RequestError(error.code, error.message, error.data);
}

/** `file` with symbolic links resolved, through its nearest existing folder when it does not exist yet. */
function realPath(file) {
  let dir = file;
  const rest = [];
  for (let i = 0; i < 4096; i += 1) {
    try {
      return path.join(fs.realpathSync(dir), ...rest.reverse());
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return file;
      rest.push(path.basename(dir));
      dir = parent;
    }
  }
  return file;
}

/** The path the core allows for `params`, checked again once links are resolved; `{ path }` or `{ error }`. */
function allowedPath(run, params, write) {
  const first = run.fsPath(params, write);
  if (first.error) return first;
  return run.fsPath({ ...params, path: realPath(first.path) }, write);
}

/** The agent's requests to the client: permission, fs, anything else "method not found". */
function clientApp(sdk, run, { onPermission, failHost }) {
  return sdk
    .client({ name: 'agent-context' })
    .onRequest('session/request_permission', async ({ params }) => {
      let decision;
      if (onPermission) {
        try {
          decision = await onPermission(params);
        } catch (err) {
          failHost(err);
          decision = 'reject';
        }
        if (typeof decision !== 'string') decision = String(decision);
      }
      try {
        return run.permission(params, decision);
      } catch (err) {
        failHost(err);
        return run.permission(params, 'reject');
      }
    })
    .onRequest('fs/read_text_file', async ({ params }) => {
      const allowed = allowedPath(run, params, false);
      if (allowed.error) throw rpcError(sdk, allowed.error);
      let content;
      try {
        content = await fs.promises.readFile(allowed.path, 'utf8');
      } catch (err) {
        if (err.code !== 'ENOENT') throw rpcError(sdk, { code: -32603, message: `cannot read ${params.path}: ${err.code || err.message}` });
        const missing = run.missingFile(params.path);
        if (missing.error) throw rpcError(sdk, missing.error);
        return missing.result;
      }
      if (params.line == null && params.limit == null) return { content };
      const lines = content.split('\n');
      const from = Math.max(0, (params.line ?? 1) - 1);
      const to = params.limit == null ? lines.length : from + params.limit;
      return { content: lines.slice(from, to).join('\n') };
    })
    .onRequest('fs/write_text_file', async ({ params }) => {
      const allowed = allowedPath(run, params, true);
      if (allowed.error) throw rpcError(sdk, allowed.error);
      await fs.promises.mkdir(path.dirname(allowed.path), { recursive: true });
      await fs.promises.writeFile(allowed.path, String(params.content ?? ''));
      return {};
    })
    .onRequest('*', ({ method }) => {
      throw rpcError(sdk, run.unknownRequest(method));
    })
    .onNotification('*', () => {});
}

/** The JSON-RPC error of a failed request, or null when the connection closed instead. */
function rpcErrorOf(err) {
  if (err && typeof err === 'object' && typeof err.code === 'number' && typeof err.message === 'string') {
    return { code: err.code, message: err.message, data: err.data ?? null };
  }
  return null;
}

/** One attempt: spawn, talk, end; resolves the core's wait before the next one, or undefined. */
async function attempt(sdk, run, plan, { cwd, env, started, signal, onEvent, onPermission, failHost }) {
  run.startAttempt();
  const deadline = started + plan.maxDurationMs;
  const wantEvents = onEvent !== undefined;
  run.setEvents(wantEvents);
  let input;
  const stdout = new ReadableStream({
    start(controller) {
      input = controller;
    },
  });
  let idleTimer;
  const child = spawnAgent(
    { file: plan.command, args: plan.args, cwd, env, keepStdin: true },
    {
      onStdout(chunk) {
        idleTimer?.refresh();
        // The core's parser first: when the SDK resolves the prompt, every byte before it was read.
        const events = run.pushStdout(chunk, wantEvents);
        if (events !== undefined) {
          try {
            for (const event of events) onEvent(event);
          } catch (err) {
            failHost(err);
            stop('aborted');
          }
        }
        try {
          input.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        } catch {
          // the connection is closed already
        }
      },
      onStderr(chunk) {
        idleTimer?.refresh();
        run.pushStderr(chunk);
      },
    },
  );
  if (child.pid === undefined) {
    const end = await child.exited;
    return { wait: run.endAttempt(end.exitCode, end.signal, end.error?.code ?? 'UNKNOWN', null, Date.now() - started), spawnError: end.error?.code };
  }
  const exited = child.exited.then((end) => {
    try {
      input.close();
    } catch {
      // closed already
    }
    return end;
  });
  const stdin = new WritableStream({
    write(chunk) {
      return new Promise((resolve) => {
        if (child.stdin.destroyed || child.stdin.writableEnded) return resolve();
        child.stdin.write(chunk, () => resolve());
      });
    },
    close() {
      child.stdin.end();
    },
  });

  let stopped = null;
  let promptSent = false;
  let killTimer;
  let context;
  const stop = (why) => {
    if (stopped !== null) return;
    stopped = why;
    if (promptSent && !run.attemptSettled() && context) {
      // Ask the turn to end, then kill the tree if it has not within the grace.
      context.notify('session/cancel', run.cancelParams()).catch(() => {});
      killTimer = setTimeout(() => child.kill(), plan.cancelGraceMs);
    } else child.kill();
  };
  idleTimer = setTimeout(() => stop('idle_timeout'), plan.idleTimeoutMs);
  const deadlineTimer = setTimeout(() => stop('timeout'), Math.max(0, deadline - Date.now()));
  const onAbort = () => stop('aborted');
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });

  const app = clientApp(sdk, run, { onPermission, failHost });
  let stage = 'initialize';
  const talk = app
    .connectWith(sdk.ndJsonStream(stdin, stdout), async (ctx) => {
      context = ctx;
      const initialized = await ctx.request('initialize', run.initializeParams());
      const open = run.sessionRequest(initialized ?? {});
      if (open === undefined) return;
      stage = 'session';
      const opened = await ctx.request(open.method, open.params);
      run.sessionOpened(opened ?? {});
      // The mode in which the agent asks, so that the policy answers (Qwen's default mode approves by itself).
      const mode = run.modeParams(opened ?? {});
      if (mode !== undefined) await ctx.request('session/set_mode', mode);
      if (stopped !== null) return;
      stage = 'prompt';
      promptSent = true;
      const response = await ctx.request('session/prompt', run.promptParams());
      run.promptEnded(response ?? {});
      // Ask the agent to finish the session (Claude's adapter writes it to disk after the
      // turn; it is killed at the end), bounded by the grace; its failure changes nothing.
      const close = run.closeParams();
      if (close !== undefined && stopped === null) {
        let timer;
        const grace = new Promise((resolve) => {
          timer = setTimeout(resolve, plan.cancelGraceMs);
        });
        await Promise.race([ctx.request('session/close', close).catch(() => {}), grace]);
        clearTimeout(timer);
      }
    })
    .catch((err) => {
      const error = rpcErrorOf(err);
      if (error) run.requestFailed(stage, error);
    });
  // The talk ends with an answer, or when the process is gone (the SDK then rejects what is pending).
  await Promise.race([talk, exited]);
  // Done with it: stdin closed; an agent that ignores EOF is killed now, the others get the grace to exit.
  if (!child.stdin.writableEnded) child.stdin.end();
  if (!plan.exitsOnEof) child.kill();
  const graceTimer = setTimeout(() => child.kill(), plan.cancelGraceMs);
  const end = await exited;
  await talk;
  for (const timer of [idleTimer, deadlineTimer, killTimer, graceTimer]) clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort);
  // An agent that ignores EOF was killed by us after its answer: that ended it, not a failure.
  const settledKill = !plan.exitsOnEof && stopped === null && run.attemptSettled();
  return { wait: run.endAttempt(settledKill ? 0 : end.exitCode, settledKill ? null : end.signal, null, stopped, Date.now() - started) };
}

/** The options only JS holds, checked: `onPermission` (the rest is ./agent-run.cjs's). */
function checkPermissionHandler(options) {
  const { onPermission } = options;
  if (onPermission != null && typeof onPermission !== 'function') {
    throw inputError(`options.onPermission must be a function, got ${onPermission === null ? 'null' : typeof onPermission}`);
  }
  return onPermission ?? undefined;
}

/**
 * runAgent with `protocol: 'acp'`. `host` = `{ signal, onEvent, env, rest,
 * output, problem }` as ./agent-run.cjs read them.
 */
async function runAcpAgent(agentType, options, host) {
  const onPermission = checkPermissionHandler(options);
  const { signal, onEvent, env, output, problem, finish } = host;
  const { onPermission: _p, command, ...rest } = host.rest;
  const started = Date.now();
  const Runner = loadRunner();
  let hostError;
  const failHost = (err) => {
    hostError ??= err;
  };
  // The agent's folder with links resolved: what the client fs methods compare with.
  const given = typeof rest.cd === 'string' && rest.cd !== '' ? path.resolve(rest.cd) : null;
  const cd = given && !directoryProblem(given) ? fs.realpathSync(given) : rest.cd;
  const run = new Runner(String(agentType), output ?? { prompt: '' }, { ...rest, cd }, command ?? '');
  try {
    if (problem) run.reject(problem);
    let plan = run.plan();
    const bad = plan && directoryProblem(path.resolve(plan.cd));
    if (bad) run.reject(`options.cd ${bad === 'missing' ? 'does not exist' : bad === 'not_a_directory' ? 'is not a directory' : `cannot be used (${bad})`}: ${rest.cd}`);
    else if (plan && signal?.aborted) run.abort();
    else if (plan) {
      const launch = await launchFor(String(agentType), plan.command, env);
      let childEnv = { ...plan.defaultEnv, ...env, ...plan.env };
      if (!launch.found) run.cannotLaunch(launch.kind === 'spawn_failed', launch.message);
      else {
        childEnv = { ...childEnv, ...launch.env };
        run.launch(launch.path, launch.file, launch.args, childEnv);
      }
      plan = run.plan();
      if (plan) {
        const sdk = await loadSdk();
        for (let n = 0; n < plan.maxAttempts; n += 1) {
          if (signal?.aborted) {
            run.abort();
            break;
          }
          const { wait, spawnError } = await attempt(sdk, run, plan, { cwd: path.resolve(plan.cd), env: childEnv, started, signal, onEvent, onPermission, failHost });
          if (spawnError === 'ENOENT' && directoryProblem(path.resolve(plan.cd))) {
            run.reject(`options.cd does not exist: ${plan.cd}`);
            break;
          }
          if (wait === undefined) break;
          if (await sleep(wait, signal)) {
            run.abort();
            break;
          }
        }
      }
    }
    if (hostError !== undefined) throw hostError;
    // `finish` (internal: the MCP tools') turns the finished core runner into their envelope.
    return finish ? finish(run, Date.now() - started) : run.result(Date.now() - started);
  } finally {
    run.free();
  }
}

module.exports = { runAcpAgent };
