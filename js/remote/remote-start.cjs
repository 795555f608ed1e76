// Starting the session engine for an agent on another machine (`options.host`),
// Node only: what ../api/run.cjs's `prepare` does for an agent here, through the
// channel (./remote-channel.cjs) instead — the other side probed (its home,
// where the run's folder goes; `cd` checked there), the run's own files and
// home staged to be made there, the attachments read or written there, the
// command left to be resolved there. The engine and its host
// (../host/engine-host.cjs) then run as for any agent; every decision is the core's.
'use strict';

const path = require('node:path');
const { RemoteChannel } = require('./remote-channel.cjs');
const { EngineHost } = require('../host/engine-host.cjs');

/** The caller's own `options.env` (added on the other side), or undefined when none was given. */
function givenEnv(env) {
  return env === undefined || env === process.env ? undefined : env;
}

/**
 * ../api/run.cjs's `prepare` for an agent on another machine (`remote`:
 * `options.host`): `{ host, plan }`, or `{ failed }` (an AgentContextError's
 * message) when the input cannot be read. `make(Engine, runFolder, there)`
 * makes the engine; `there` is `{ cd, attachments }` as that side has them
 * (the raw `cd` and no attachments for the first, checking call, made before
 * anything goes through the channel). `cd`: `options.cd`; `attachments`:
 * a run's, read there; `scratch`: whether images given as data are written
 * there as files (a run over the CLI).
 */
async function prepareRemote(make, { env, onPermission, onElicitation, onUpdate, onHostError, warn, remote, cd, attachments, scratch = false }) {
  const Engine = require('../core/agent_context_node.cjs').__Engine;
  const ownEnv = givenEnv(env);
  let channel;
  try {
    channel = new RemoteChannel(remote, ownEnv);
    make(Engine, '/run-folder-checked', { cd, attachments: undefined }).free();
  } catch (err) {
    await channel?.close();
    if (err && err.name === 'AgentContextError') return { failed: err.message };
    throw err;
  }
  const probe = await channel.probe(cd);
  if (probe.problem?.kind === 'invalid') {
    await channel.close();
    return { failed: probe.problem.message };
  }
  let engine;
  try {
    // Images given by path are read there; those given as data are written there for a CLI that reads a file.
    const read = probe.ok && attachments != null ? await attachmentsThere(channel, attachments, probe.ok.cd, scratch ? `${channel.runFolder}/attachments` : null) : undefined;
    // Not reached: an engine that fails its first operation, never spawned.
    engine = make(Engine, channel.runFolder || '/unreachable', { cd: probe.ok?.cd ?? cd, attachments: read });
  } catch (err) {
    await channel.close();
    if (err && err.name === 'AgentContextError') return { failed: err.message };
    throw err;
  }
  // Elicitations are advertised, and asked of the host, only with a handler.
  if (onElicitation !== undefined) engine.input({ type: 'answerElicitations', on: true }, Date.now());
  const plan = engine.plan();
  for (const message of plan.warnings ?? []) warn?.(message);
  const host = new EngineHost(engine, { env: ownEnv ?? {}, onPermission, onElicitation, onUpdate, onHostError, runFolder: null, warn });
  host.channel = channel;
  if (probe.problem?.kind === 'cd') engine.input({ type: 'reject', message: `options.cd ${probe.problem.message}` }, Date.now());
  else if (probe.problem) engine.input({ type: 'cannotLaunch', spawnFailed: true, message: probe.problem.message }, Date.now());
  else {
    channel.stageFiles(plan.files);
    if (plan.home) await channel.stageHome(plan.home, probe.ok.env);
    // Resolved there, by the bootstrap (`command -v`).
    engine.launch(plan.command, plan.command, [], ownEnv ?? {}, Date.now());
  }
  return { host, plan };
}

let maxBytes;
function maxImageBytes() {
  maxBytes ??= require('../core/agent_context_node.cjs').__attachmentMaxBytes();
  return maxBytes;
}

/**
 * `attachments` as the core reads them, for an agent on the other side:
 * paths are that side's (relative ones from `cd`); an image given by path
 * is read there; one given as data is written there (in `scratch`, when
 * given: a CLI that reads image files). Bad items are left for the core.
 */
async function attachmentsThere(channel, attachments, cd, scratch) {
  if (!Array.isArray(attachments)) return attachments;
  const out = [];
  for (const [i, item] of attachments.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      out.push(item);
      continue;
    }
    const copy = { ...item };
    const hasPath = typeof item.path === 'string' && item.path !== '';
    if (hasPath && (item.type === 'image' || item.type === 'resource_link')) copy.path = path.posix.resolve(cd, item.path);
    if (item.type === 'image' && hasPath && item.data == null) Object.assign(copy, await channel.readImage(copy.path, maxImageBytes()));
    else if (item.type === 'image' && scratch && item.path == null && typeof item.data === 'string' && typeof item.mimeType === 'string') {
      const file = `${scratch}/attachment-${i}.${item.mimeType.split('/').pop().replace(/[^a-z0-9]/gi, '')}`;
      channel.stageBytes(file, Buffer.from(item.data, 'base64'));
      copy._file = file;
    }
    out.push(copy);
  }
  return out;
}

module.exports = { prepareRemote, attachmentsThere };
