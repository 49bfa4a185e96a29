/**
 * Utilities: logging/setLevel, progress notifications (basic/utilities/progress) and
 * cancellation (basic/utilities/cancellation). Progress and cancellation need a tool that takes
 * time; without one they are "not applicable".
 */
import type { CheckContext } from '../core/context.js';
import { isObject, OWN_CONNECTION as OWN } from '../core/context.js';
import { declared } from '../core/lists.js';
import { describeOutcome, messageOf, type Outcome, type Probe, type Recorded } from '../core/probe.js';
import { pickSlowTool } from '../features/tools.js';
import { BlockedError, notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const setLevel: CheckDef = {
  id: 'logging.set-level',
  title: 'logging/setLevel is accepted when logging is declared',
  clause: 'basic.lifecycle#3',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'logging')) return notApplicable('the server does not declare the logging capability');
    const o = await s.probe.request('logging/setLevel', { level: 'info' });
    if (o.kind === 'result') return pass();
    return violated(`the server declares "logging" but logging/setLevel {"level":"info"} got ${describeOutcome(o)}`, messageOf(o));
  },
};

let tokenCounter = 0;

/** Progress notifications (from any probe) carrying `token`, after record `fromSeq`. */
function progressFor(ctx: CheckContext, token: string, fromSeq = 0): Recorded[] {
  return ctx.traffic.records.filter((r) => {
    if (r.seq <= fromSeq || r.dir !== 'in' || r.kind !== 'notification') return false;
    const m = r.message as { method?: unknown; params?: { progressToken?: unknown } };
    return m.method === 'notifications/progress' && m.params?.progressToken === token;
  });
}

/** A progress notification whose token was never sent by the client (on that connection). */
function strayProgress(ctx: CheckContext): Recorded | undefined {
  const sent = new Set<string>();
  for (const r of ctx.traffic.records) {
    const m = r.message as { method?: unknown; params?: { _meta?: { progressToken?: unknown }; progressToken?: unknown } };
    if (r.dir === 'out' && r.kind === 'request' && m.params?._meta?.progressToken !== undefined) {
      sent.add(`${r.probe}:${JSON.stringify(m.params._meta.progressToken)}`);
    } else if (r.dir === 'in' && r.kind === 'notification' && m.method === 'notifications/progress') {
      if (!sent.has(`${r.probe}:${JSON.stringify(m.params?.progressToken)}`)) return r;
    }
  }
  return undefined;
}

interface ProgressRun {
  tool: string;
  all: Recorded[];
  doneSeq: number;
  stray: Recorded | undefined;
  response: unknown;
}

/** One call of the slow tool with a progress token (memoized: the four progress checks judge it). */
async function progressRun(ctx: CheckContext): Promise<ProgressRun | Verdict> {
  return ctx.memo('progress-run', async (): Promise<ProgressRun | Verdict> => {
    const s = await ctx.session();
    const tool = await pickSlowTool(ctx);
    if (tool === undefined) return notApplicable('no callable tool that takes time was found (read-only or in --fixtures, name like sleep/delay/slow/long-running with a numeric duration; or --slow-tool)');
    const token = `mcpwire-check-progress-${++tokenCounter}`;
    const o = await s.probe.request(
      'tools/call',
      { name: tool.name, arguments: tool.args(1500), _meta: { progressToken: token } },
      { timeoutMs: ctx.timeoutMs + 15_000 },
    );
    if (o.kind !== 'result' && o.kind !== 'error') return notApplicable(`${tool.name} got ${describeOutcome(o)}`);
    const doneSeq = o.message?.seq ?? Number.MAX_SAFE_INTEGER;
    await sleep(400);
    const all = progressFor(ctx, token);
    if (all.length === 0 && strayProgress(ctx) === undefined) return notApplicable(`the server sent no progress for ${tool.name}`);
    return { tool: tool.name, all, doneSeq, stray: strayProgress(ctx), response: messageOf(o) };
  });
}

const progressToken: CheckDef = {
  id: 'progress.token-echoed',
  title: 'progress notifications only carry a token the client sent',
  clause: 'basic.utilities.progress#5',
  level: 'MUST',
  async run(ctx) {
    const r = await progressRun(ctx);
    if ('status' in r) return r;
    if (r.stray !== undefined) return violated('a progress notification references a token no request of this client carried', r.stray.message);
    return pass(`${r.all.length} notifications from ${r.tool}, all with the request's token`);
  },
};

const progressMonotonic: CheckDef = {
  id: 'progress.monotonic',
  title: 'the progress value increases with each notification',
  clause: 'basic.utilities.progress#3',
  level: 'MUST',
  async run(ctx) {
    const r = await progressRun(ctx);
    if ('status' in r) return r;
    if (r.all.length === 0) return notApplicable(`no progress with the request's token from ${r.tool}`);
    let last = -Infinity;
    for (const n of r.all) {
      const p = (n.message as { params: Record<string, unknown> }).params;
      if (typeof p.progress !== 'number') return violated('a progress notification has no numeric "progress"', n.message);
      if (p.progress <= last) return violated(`progress MUST increase with each notification: ${last} then ${p.progress}`, n.message);
      last = p.progress;
    }
    return pass(`${r.all.length} increasing values`);
  },
};

const progressTotal: CheckDef = {
  id: 'progress.total',
  title: 'progress "total" is a number that stays the same and is not exceeded',
  clause: 'schema.json ProgressNotification.total',
  level: 'SHOULD',
  async run(ctx) {
    const r = await progressRun(ctx);
    if ('status' in r) return r;
    const withTotal = r.all.filter((n) => (n.message as { params: Record<string, unknown> }).params.total !== undefined);
    if (withTotal.length === 0) return notApplicable('no notification carried a total');
    let first: unknown;
    for (const n of withTotal) {
      const p = (n.message as { params: Record<string, unknown> }).params;
      if (typeof p.total !== 'number') return violated('"total" is not a number', n.message, { level: 'MUST' });
      first ??= p.total;
      if (p.total !== first) return violated(`"total" (the total number of items to process) changed from ${String(first)} to ${p.total}`, n.message);
      if (typeof p.progress === 'number' && p.progress > p.total) return violated(`progress ${p.progress} exceeds total ${p.total}`, n.message);
    }
    return pass(`total ${String(first)}`);
  },
};

const progressAfter: CheckDef = {
  id: 'progress.after-completion',
  title: 'no progress notification after the response',
  clause: 'basic.utilities.progress#11',
  level: 'MUST',
  async run(ctx) {
    const r = await progressRun(ctx);
    if ('status' in r) return r;
    const late = r.all.find((n) => n.seq > r.doneSeq);
    if (late !== undefined) return violated('progress notifications MUST stop after completion; one arrived after the response', late.message);
    return pass();
  },
};

const cancellation: CheckDef = {
  id: 'cancellation.honoured',
  title: 'a cancelled request gets no response',
  clause: 'basic.utilities.cancellation#4',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    const tool = await pickSlowTool(ctx);
    if (tool === undefined) return notApplicable('no tool that takes time was found (name like sleep/delay/slow/long-running with a numeric duration)');
    const token = `mcpwire-check-cancel-${++tokenCounter}`;
    const runMs = ctx.options.cancelRunMs ?? 4000;
    const startSeq = ctx.traffic.records.at(-1)?.seq ?? 0;
    // The request stays pending after notifications/cancelled (sent by hand, so the transport
    // keeps listening: over HTTP the response stream stays open) to see whether an answer comes.
    const ac = new AbortController();
    const p = s.probe.request(
      'tools/call',
      { name: tool.name, arguments: tool.args(runMs), _meta: { progressToken: token } },
      { signal: ac.signal, timeoutMs: ctx.timeoutMs + 30_000, cancellable: false },
    );
    const sentId = lastOut(ctx, s.probe.id, 'request')?.id;
    // Cancel once the work has visibly started (first progress), or after a moment.
    const started = Date.now();
    let early: Outcome | undefined;
    void p.then((o) => (early = o));
    while (Date.now() - started < 800 && early === undefined && progressFor(ctx, token, startSeq).length === 0) await sleep(50);
    if (early?.kind === 'result' || early?.kind === 'error') return notApplicable(`${tool.name} finished before it could be cancelled`);
    await s.probe.conn.notify('notifications/cancelled', { requestId: sentId, reason: 'mcpwire check: cancellation test' });
    const cancelSeq = ctx.traffic.records.at(-1)?.seq ?? 0;
    // Wait past the time the tool would have taken, then look for a response to the cancelled id.
    const settled = await Promise.race([p, sleep(runMs + 1000).then(() => undefined)]);
    if (settled === undefined) ac.abort(new Error('mcpwire check: done waiting'));
    await p;
    const late = ctx.traffic.records.find(
      (r) => r.seq > cancelSeq && r.probe === s.probe.id && r.dir === 'in' && (r.kind === 'result' || r.kind === 'error') && isObject(r.message) && r.message.id === sentId,
    );
    const alive = await s.probe.request('ping');
    if (alive.kind === 'timeout' || alive.kind === 'closed') {
      return violated(`after notifications/cancelled the server stopped answering (ping got ${describeOutcome(alive)})`, undefined, {
        level: 'MUST',
        clause: 'basic.utilities.cancellation#6',
      });
    }
    if (late !== undefined) {
      return violated(`receivers of a cancellation SHOULD not send a response for the cancelled request; ${tool.name} answered anyway`, late.message);
    }
    return pass(`${tool.name} cancelled, no response`);
  },
};

/** The last message of `kind` the client sent on probe `probe`. */
function lastOut(ctx: CheckContext, probe: number, kind: string): { id?: string | number } | undefined {
  for (let i = ctx.traffic.records.length - 1; i >= 0; i--) {
    const r = ctx.traffic.records[i];
    if (r.probe === probe && r.dir === 'out' && r.kind === kind) return r.message as { id?: string | number };
  }
  return undefined;
}

/**
 * Runs `fn` on an initialized connection of its own (so a check that may kill the server leaves
 * the shared session alone). The checks here that need one share it: the next gets it only when
 * the check before passed on it and it is still open — after a violation (or a skip, an error)
 * the next starts the server again, so no check's verdict rests on what another provoked. Each
 * judges only its own requests and what came after them. It may be the connection of
 * lifecycle.version-unknown's initialize, handed on after that check passed: refused (never
 * initialized, so it is initialized here) or answered with the version this connection's own
 * initialize gets (so only `notifications/initialized` is left to send).
 */
async function onOwnConnection(ctx: CheckContext, fn: (probe: Probe) => Promise<Verdict>): Promise<Verdict> {
  let probe = ctx.kept<Probe>(OWN);
  let reused = true;
  const fresh = async (): Promise<Probe> => {
    reused = false;
    ctx.drop(OWN);
    const p = await ctx.openUnowned();
    ctx.keep(OWN, p);
    return p;
  };
  if (probe === undefined || probe.closed) probe = await fresh();
  let verdict: Verdict | undefined;
  try {
    if (probe.phase === 'pre-init') {
      let init = await probe.initialize();
      // A handed-on connection whose unsupported-version initialize was refused: a server may not
      // take a second initialize there; these checks then get the fresh connection they had before.
      if (init.kind !== 'result' && reused) {
        probe = await fresh();
        init = await probe.initialize();
      }
      if (init.kind !== 'result') throw new BlockedError(`blocked: initialize got ${describeOutcome(init)} (see lifecycle.initialize-result)`);
      await probe.initialized();
    } else if (probe.phase === 'initializing') await probe.initialized();
    verdict = await fn(probe);
    return verdict;
  } finally {
    if (verdict?.status !== 'pass') ctx.drop(OWN);
  }
}

const cancelUnknown: CheckDef = {
  id: 'cancellation.unknown-ignored',
  title: 'a cancellation for an unknown request is ignored (no response, server keeps working)',
  clause: 'basic.utilities.cancellation#9',
  level: 'SHOULD',
  run: (ctx) =>
    onOwnConnection(ctx, async (probe) => {
      const from = ctx.traffic.records.at(-1)?.seq ?? 0;
      await probe.conn.notify('notifications/cancelled', { requestId: 'mcpwire-check-never-sent', reason: 'mcpwire check: unknown request' });
      const alive = await probe.request('ping');
      await sleep(100);
      const answer = ctx.traffic.records.find((r) => r.seq > from && r.probe === probe.id && r.dir === 'in' && (r.kind === 'error' || r.kind === 'result') && (r.message as { id?: unknown }).id === null);
      answer?.claims.push('');
      if (answer !== undefined) return violated('invalid cancellation notifications SHOULD be ignored; the server answered one (and a notification MUST NOT get a response, basic#11)', answer.message);
      if (alive.kind !== 'result' && alive.kind !== 'error') return violated(`after a cancellation for an unknown request, ping got ${describeOutcome(alive)}`, undefined);
      return pass();
    }),
};

const cancelRace: CheckDef = {
  id: 'cancellation.race',
  title: 'a cancellation that arrives after the response is handled gracefully',
  clause: 'basic.utilities.cancellation#6',
  level: 'MUST',
  run: (ctx) =>
    onOwnConnection(ctx, async (probe) => {
      const first = await probe.request('ping');
      if (first.kind !== 'result') return skip(`blocked: ping got ${describeOutcome(first)} (see ping.empty-result)`);
      const id = (first.message?.message as { id?: unknown } | undefined)?.id;
      await probe.conn.notify('notifications/cancelled', { requestId: id, reason: 'mcpwire check: already answered' });
      const alive = await probe.request('ping');
      if (alive.kind === 'result' || alive.kind === 'error') return pass();
      return violated(`both parties MUST handle the race where a cancellation arrives after the response; after cancelling answered request ${JSON.stringify(id)} the server's next ping got ${describeOutcome(alive)}`, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
    }),
};

const invalidLevel: CheckDef = {
  id: 'logging.invalid-level',
  title: 'logging/setLevel with an unknown level gets -32602',
  clause: 'server.utilities.logging#2',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'logging')) return notApplicable('the server does not declare the logging capability');
    const o = await s.probe.request('logging/setLevel', { level: 'mcpwire-check-loud' });
    if (o.kind === 'error' && o.error.code === -32602) return pass();
    return violated(`an invalid log level SHOULD get -32602 (Invalid params); it got ${describeOutcome(o)}`, messageOf(o));
  },
};

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const levelFilter: CheckDef = {
  id: 'logging.level-filter',
  title: 'after logging/setLevel "error", no less severe log messages arrive',
  clause: 'schema.json SetLevelRequest.level',
  level: 'SHOULD',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'logging')) return notApplicable('the server does not declare the logging capability');
    return onOwnConnection(ctx, async (probe) => {
      const set = await probe.request('logging/setLevel', { level: 'error' });
      if (set.kind !== 'result') return skip(`blocked: logging/setLevel got ${describeOutcome(set)} (see logging.set-level)`);
      const from = set.message?.seq ?? 0;
      await probe.request('ping');
      await sleep(1000);
      const logs = ctx.traffic.records.filter((r) => r.seq > from && r.probe === probe.id && r.dir === 'in' && r.kind === 'notification' && (r.message as { method?: unknown }).method === 'notifications/message');
      const low = logs.find((r) => LEVELS.indexOf(String((r.message as { params?: { level?: unknown } }).params?.level)) < LEVELS.indexOf('error'));
      if (low !== undefined) return violated(`the server should send logs at the set level and higher only; after setLevel "error" it sent a "${String((low.message as { params?: { level?: unknown } }).params?.level)}" message`, low.message);
      return logs.length === 0 ? notApplicable('the server sent no log message within 1 s after setLevel') : pass(`${logs.length} messages, all at "error" or above`);
    });
  },
};

export const utilityChecks: CheckDef[] = [setLevel, invalidLevel, levelFilter, progressToken, progressMonotonic, progressTotal, progressAfter, cancellation, cancelUnknown, cancelRace];
