/**
 * Lifecycle checks (basic/lifecycle): the initialize result, version negotiation, the
 * `initialized` notification, and requests before initialization. Version negotiation and
 * pre-initialize behaviour need fresh connections (spawned anew for stdio).
 */
import { LATEST_PROTOCOL_VERSION } from '../../mcp/versions.js';
import type { CheckContext } from '../core/context.js';
import { isObject, OWN_CONNECTION } from '../core/context.js';
import { blockedBy, describeOutcome, messageOf, type Outcome, type Probe } from '../core/probe.js';
import { describeViolation, serverMessageViolations } from '../core/schema.js';
import { BlockedError, notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

export const UNKNOWN_VERSION = '1999-01-01';

/** Tries to set up the shared session; its outcome (or failure) is recorded on the context. */
async function trySession(ctx: CheckContext): Promise<void> {
  try {
    await ctx.session();
  } catch (err) {
    if (!(err instanceof BlockedError)) throw err;
  }
}

const initializeResult: CheckDef = {
  id: 'lifecycle.initialize-result',
  title: 'initialize answered with protocolVersion, capabilities and serverInfo',
  clause: 'basic.lifecycle#3',
  level: 'MUST',
  async run(ctx) {
    await trySession(ctx);
    const first = ctx.firstSession;
    if (first === undefined) return violated(ctx.setupFailure?.detail ?? 'the server could not be started');
    const init = first.init;
    const blocked = blockedBy(init);
    if (blocked !== undefined) return skip(blocked);
    if (init.kind !== 'result') {
      return violated(`the server MUST respond to initialize with its capabilities and information; it sent ${describeOutcome(init)}`, messageOf(init));
    }
    const problems: string[] = [];
    const r = init.result;
    if (typeof r.protocolVersion !== 'string') problems.push('no string "protocolVersion"');
    if (!isObject(r.capabilities)) problems.push('no "capabilities" object');
    const info = r.serverInfo;
    if (!isObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string') {
      problems.push('no "serverInfo" with string "name" and "version"');
    }
    if (init.message !== undefined) {
      for (const v of serverMessageViolations(init.message.message, 'initialize')) problems.push(describeViolation(v));
      // This check owns the initialize result's shape: the aggregate schema check skips it.
      init.message.claims.push('');
    }
    if (problems.length > 0) {
      return violated(`the InitializeResult is malformed: ${[...new Set(problems)].slice(0, 5).join('; ')}`, init.message?.message ?? r);
    }
    return pass(`protocolVersion ${JSON.stringify(r.protocolVersion)}, server ${JSON.stringify((info as { name: string }).name)}`);
  },
};

const versionEcho: CheckDef = {
  id: 'lifecycle.version-echo',
  title: 'a supported requested protocol version is answered with the same version',
  clause: 'basic.lifecycle#9',
  level: 'MUST',
  async run(ctx) {
    await trySession(ctx);
    const init = ctx.firstSession?.init;
    if (init?.kind !== 'result' || typeof init.result.protocolVersion !== 'string') {
      return skip('blocked: no initialize result with a protocolVersion (see lifecycle.initialize-result)');
    }
    const v = init.result.protocolVersion;
    if (v === LATEST_PROTOCOL_VERSION) return pass(`requested ${v}, got ${v}`);
    // The server said it does not support the latest revision but does support `v`:
    // asking for `v` on a fresh connection must get `v` back.
    const probe = await ctx.open();
    const again = await probe.initialize(v);
    const blocked = blockedBy(again);
    if (blocked !== undefined) return skip(blocked);
    if (again.kind !== 'result') {
      return violated(`the server answered ${LATEST_PROTOCOL_VERSION} with ${v}, so it supports ${v}; asked for ${v} it sent ${describeOutcome(again)}`, messageOf(again));
    }
    if (again.result.protocolVersion !== v) {
      return violated(
        `the server answered a request for ${LATEST_PROTOCOL_VERSION} with ${v} (so it supports ${v}), but answered a request for ${v} with ${JSON.stringify(again.result.protocolVersion)}; it MUST respond with the same version`,
        messageOf(again),
      );
    }
    return pass(`server does not support ${LATEST_PROTOCOL_VERSION}; requested ${v}, got ${v}`);
  },
};

const versionUnknown: CheckDef = {
  id: 'lifecycle.version-unknown',
  title: `an unsupported protocol version (${UNKNOWN_VERSION}) gets a version the server supports, or an error`,
  clause: 'basic.lifecycle#10',
  level: 'MUST',
  async run(ctx) {
    const o = await unknownVersionOutcome(ctx);
    if (o.kind === 'error') return pass(`refused with error ${o.error.code}`);
    const blocked = blockedBy(o);
    if (blocked !== undefined) return skip(blocked);
    if (o.kind !== 'result') {
      return violated(`asked for unsupported version ${UNKNOWN_VERSION}, the server MUST respond with another version it supports (or an error); it sent ${describeOutcome(o)}`);
    }
    const v = o.result.protocolVersion;
    if (v === UNKNOWN_VERSION) {
      return violated(`the server echoed the unsupported version ${UNKNOWN_VERSION} instead of responding with a version it supports`, messageOf(o));
    }
    if (typeof v !== 'string') return violated('the initialize result has no string "protocolVersion"', messageOf(o));
    return pass(`answered with ${v}`);
  },
};

const initializedAccepted: CheckDef = {
  id: 'lifecycle.initialized-accepted',
  title: 'after notifications/initialized the server keeps answering',
  clause: 'basic.lifecycle#4',
  level: 'MUST',
  async run(ctx) {
    await trySession(ctx);
    const f = ctx.setupFailure;
    if (f?.stage === 'after-initialized') return violated(f.detail, f.evidence);
    if (f !== undefined) return skip(`blocked: ${f.detail}`);
    return pass('ping answered after notifications/initialized');
  },
};

const beforeInitialize: CheckDef = {
  id: 'lifecycle.before-initialize',
  title: 'a request before initialize is refused',
  clause: 'basic.lifecycle#1',
  level: 'SHOULD',
  async run(ctx): Promise<Verdict> {
    // A list the server declares (seen on the shared session): refusing an undeclared method
    // (-32601) says nothing about the lifecycle.
    const s = await ctx.session();
    const method = (['tools', 'resources', 'prompts'] as const).find((c) => isObject(s.capabilities[c]));
    if (method === undefined) return notApplicable('the server declares none of tools, resources, prompts: no request to send before initialize that it would serve');
    const list = `${method}/list`;
    const probe = await ctx.openUnowned();
    const o = await probe.request(list, {});
    // stdio, refused with an error: the connection is still one that was never initialized, and
    // the unsupported-version initialize goes on on it (as a client goes on with `initialize`
    // after a refused `server/discover`) instead of starting the server again; else it is closed.
    if (!ctx.isHttp && o.kind === 'error' && !probe.closed) ctx.keep(PRE_INIT, probe);
    else ctx.later(probe.close());
    const why =
      'the initialization phase MUST be the first interaction (the duty is on the client, so a lenient server is a warning)';
    if (o.kind === 'error') return pass(`${list} refused with error ${o.error.code}`);
    if (o.kind === 'result') return violated(`${list} sent before initialize was served: ${why}`, messageOf(o));
    if (o.kind === 'timeout') return violated(`${list} sent before initialize got no response at all (${describeOutcome(o)}); a refusal is an error response`);
    return pass(`refused ${ctx.isHttp ? 'at the HTTP level' : 'by closing the connection'} (${describeOutcome(o)})`);
  },
};

const unknownOutcomes = new WeakMap<CheckContext, Promise<Outcome>>();

/** lifecycle.before-initialize's connection, after its request was refused with an error. */
const PRE_INIT = 'lifecycle-pre-init';

/**
 * The answer to an initialize with UNKNOWN_VERSION (asked once per run): on the connection
 * lifecycle.before-initialize left (never initialized), when there is one and it answers (a
 * response, success or error); else — and after a silence or a close there, whose traffic is
 * forgotten — on a fresh connection, so only a server's answer is ever judged on the shared one.
 */
function unknownVersionOutcome(ctx: CheckContext): Promise<Outcome> {
  let p = unknownOutcomes.get(ctx);
  if (p === undefined) {
    p = (async () => {
      const kept = ctx.take<Probe>(PRE_INIT);
      if (kept !== undefined && !kept.closed && kept.phase === 'pre-init') {
        const o = await kept.initialize(UNKNOWN_VERSION);
        if (o.kind === 'result' || o.kind === 'error') return handOnOrClose(ctx, kept, o);
        ctx.later(kept.close());
        ctx.traffic.forget(kept.id);
      } else if (kept !== undefined) ctx.later(kept.close());
      const probe = await ctx.openUnowned();
      let o: Outcome | undefined;
      try {
        o = await probe.initialize(UNKNOWN_VERSION);
        return o;
      } finally {
        if (o !== undefined) handOnOrClose(ctx, probe, o);
        else ctx.later(probe.close());
      }
    })();
    unknownOutcomes.set(ctx, p);
  }
  return p;
}

/**
 * After the unsupported-version initialize on a stdio connection: hands the connection on to the
 * checks that want an initialized connection of their own (cancellation, the log filter;
 * OWN_CONNECTION) instead of starting the server for them, when it is in the state their own
 * initialize would leave — refused with an error (never initialized: they initialize it), or
 * answered with the very version the shared session got for the latest revision, which they
 * ask for (only `notifications/initialized` is left). Taken only if the check now running ends
 * clean (`handOn`); else, and in every other case, closed.
 */
function handOnOrClose(ctx: CheckContext, probe: Probe, o: Outcome): Outcome {
  const session = ctx.firstSession;
  const asksLatest = (ctx.options.protocolVersion ?? LATEST_PROTOCOL_VERSION) === LATEST_PROTOCOL_VERSION;
  const sameVersion =
    o.kind === 'result' && asksLatest && session?.init.kind === 'result' && typeof o.result.protocolVersion === 'string' && o.result.protocolVersion === session.protocolVersion;
  if (ctx.isHttp || probe.closed || (o.kind !== 'error' && !sameVersion)) {
    ctx.later(probe.close());
    return o;
  }
  // refused: the connection is back where it began, never initialized
  if (o.kind === 'error') probe.phase = 'pre-init';
  ctx.handOn(OWN_CONNECTION, probe);
  return o;
}

const versionLatest: CheckDef = {
  id: 'lifecycle.version-latest',
  title: 'an unsupported version is answered with the latest version the server supports',
  clause: 'basic.lifecycle#11',
  level: 'SHOULD',
  async run(ctx) {
    await trySession(ctx);
    const init = ctx.firstSession?.init;
    if (init?.kind !== 'result' || typeof init.result.protocolVersion !== 'string') return skip('blocked: no initialize result with a protocolVersion (see lifecycle.initialize-result)');
    const known = init.result.protocolVersion;
    const o = await unknownVersionOutcome(ctx);
    if (o.kind !== 'result' || typeof o.result.protocolVersion !== 'string') return notApplicable(`the unsupported version got ${describeOutcome(o)}`);
    const got = o.result.protocolVersion;
    if (got === UNKNOWN_VERSION) return skip('see lifecycle.version-unknown');
    // The server supports `known` (it answered a request for the latest revision with it).
    if (got < known) return violated(`asked for unsupported ${UNKNOWN_VERSION}, the server answered ${got}, though it supports ${known}; this SHOULD be the latest version it supports`, messageOf(o));
    return pass(`answered ${got}`);
  },
};

// before-initialize ahead of the version checks: its connection, refused and never initialized, carries their initialize
export const lifecycleChecks: CheckDef[] = [initializeResult, initializedAccepted, versionEcho, beforeInitialize, versionUnknown, versionLatest];
