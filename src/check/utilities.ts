/**
 * Utilities: logging/setLevel, progress notifications (basic/utilities/progress) and
 * cancellation (basic/utilities/cancellation). Progress and cancellation need a tool that takes
 * time; without one they are "not applicable".
 */
import type { CheckContext } from './context.js';
import { isObject } from './context.js';
import { declared } from './lists.js';
import { describeOutcome, messageOf, type Outcome, type Recorded } from './probe.js';
import { pickSlowTool } from './tools.js';
import { notApplicable, pass, violated, type CheckDef } from './types.js';

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

const progress: CheckDef = {
  id: 'progress.well-formed',
  title: 'progress notifications carry a token the client sent, increase, and stop at completion',
  clause: 'basic.utilities.progress#3',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const tool = await pickSlowTool(ctx);
    if (tool === undefined) return notApplicable('no tool that takes time was found (name like sleep/delay/slow/long-running with a numeric duration)');
    const token = `mcpwire-check-progress-${++tokenCounter}`;
    const o = await s.probe.request(
      'tools/call',
      { name: tool.name, arguments: tool.args(1500), _meta: { progressToken: token } },
      { timeoutMs: ctx.timeoutMs + 15_000 },
    );
    if (o.kind !== 'result' && o.kind !== 'error') return notApplicable(`${tool.name} got ${describeOutcome(o)}`);
    const doneSeq = o.message?.seq ?? Number.MAX_SAFE_INTEGER;
    await sleep(300);
    const stray = strayProgress(ctx);
    if (stray !== undefined) {
      return violated('a progress notification references a token no request of this client carried', stray.message, { clause: 'basic.utilities.progress#5' });
    }
    const all = progressFor(ctx, token);
    if (all.length === 0) return notApplicable(`the server sent no progress for ${tool.name}`);
    let last = -Infinity;
    for (const r of all) {
      const p = (r.message as { params: Record<string, unknown> }).params;
      if (typeof p.progress !== 'number') return violated('a progress notification has no numeric "progress"', r.message);
      if (p.progress <= last) return violated(`progress MUST increase with each notification: ${last} then ${p.progress}`, r.message);
      if (p.total !== undefined && typeof p.total !== 'number') return violated('"total" is not a number', r.message);
      if (r.seq > doneSeq) return violated('progress notifications MUST stop after completion; one arrived after the response', r.message, { clause: 'basic.utilities.progress#11' });
      last = p.progress;
    }
    return pass(`${all.length} notifications from ${tool.name}`);
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

export const utilityChecks: CheckDef[] = [setLevel, progress, cancellation];
