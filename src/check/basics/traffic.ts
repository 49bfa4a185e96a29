/**
 * Aggregate checks: judged after every other check, over every message the server sent on every
 * connection of the run (so a violation anywhere is caught, whichever check provoked it).
 */
import type { CheckContext } from '../core/context.js';
import type { Recorded } from '../core/probe.js';
import { describeViolation, serverMessageViolations, unclaimed } from '../core/schema.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';
import { invalidReason } from '../../jsonrpc/types.js';

function seenSomething(ctx: CheckContext): Verdict | undefined {
  return ctx.traffic.fromServer().length === 0 ? notApplicable('the server sent no messages during the run') : undefined;
}

function countNote(n: number, total: number): string {
  return n > 1 ? ` (${n} of ${total} messages; the first is quoted)` : '';
}

const envelope: CheckDef = {
  id: 'jsonrpc.envelope',
  title: 'every server message is JSON-RPC 2.0 ("jsonrpc": "2.0", valid request/notification/response)',
  clause: 'basic#2',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const all = ctx.traffic.fromServer();
    const bad = all.filter((r) => r.kind === 'invalid');
    if (bad.length === 0) return seenSomething(ctx) ?? pass(`${all.length} messages`);
    return violated(
      `all messages MUST follow JSON-RPC 2.0: ${invalidReason(bad[0].message)}${countNote(bad.length, all.length)}`,
      bad[0].message,
    );
  },
};

const responseIds: CheckDef = {
  id: 'jsonrpc.response-ids',
  title: 'every response carries the id of a request it answers, once',
  clause: 'basic#6',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const all = ctx.traffic.fromServer();
    const bad = all.filter((r) => r.unmatched !== undefined);
    if (bad.length === 0) return seenSomething(ctx) ?? pass();
    const why = bad[0].unmatched === 'duplicate' ? 'answers a request that was already answered' : 'carries an id the client never sent';
    return violated(`responses MUST include the same id as the request they correspond to; a response ${why}${countNote(bad.length, all.length)}`, bad[0].message);
  },
};

const stdoutClean: CheckDef = {
  id: 'transport.stdout-clean',
  title: 'the server writes nothing but MCP messages to stdout',
  clause: 'basic.transports#5',
  level: 'MUST',
  transport: 'stdio',
  aggregate: true,
  async run(ctx) {
    const bad = ctx.traffic.diagnostics.filter((d) => d.code === 'MCPWIRE_FRAME_MALFORMED' || d.code === 'MCPWIRE_FRAME_OVERSIZED');
    if (bad.length === 0) return seenSomething(ctx) ?? pass();
    return violated(`the server MUST NOT write anything to stdout that is not a valid MCP message: ${bad[0].message}${bad.length > 1 ? ` (${bad.length} such lines)` : ''}`, bad[0].excerpt);
  },
};

const strictSchema: CheckDef = {
  id: 'schema.strict',
  title: 'every server message validates against schema.json (2025-11-25)',
  clause: 'schema.json 2025-11-25',
  level: 'MUST',
  aggregate: true,
  async run(ctx) {
    const all = ctx.traffic.fromServer();
    // Envelope problems are jsonrpc.envelope's; parts another check already judged are theirs.
    let first: { rec: Recorded; lines: string[] } | undefined;
    let count = 0;
    for (const rec of all) {
      // initialize results are lifecycle.initialize-result's (on every connection).
      if (rec.kind === 'invalid' || rec.claims.includes('') || rec.requestMethod === 'initialize') continue;
      const vs = unclaimed(serverMessageViolations(rec.message, rec.requestMethod), rec.claims);
      if (vs.length === 0) continue;
      count++;
      first ??= { rec, lines: vs.slice(0, 3).map(describeViolation) };
    }
    if (first === undefined) return seenSomething(ctx) ?? pass(`${all.length} messages`);
    const what = first.rec.requestMethod ? `the response to ${first.rec.requestMethod}` : `a ${first.rec.kind}`;
    return violated(`${what} does not validate against schema.json: ${first.lines.join('; ')}${countNote(count, all.length)}`, first.rec.message);
  },
};

const earlyRequests: CheckDef = {
  id: 'lifecycle.no-early-requests',
  title: 'the server sends no requests but ping before notifications/initialized',
  clause: 'basic.lifecycle#6',
  level: 'SHOULD',
  aggregate: true,
  async run(ctx) {
    const early = ctx.traffic
      .fromServer()
      .filter((r) => r.kind === 'request' && r.phase !== 'operating' && (r.message as { method?: unknown }).method !== 'ping');
    if (early.length === 0) return seenSomething(ctx) ?? pass();
    return violated(
      `the server SHOULD NOT send requests other than pings before receiving notifications/initialized; it sent ${JSON.stringify((early[0].message as { method?: unknown }).method)}`,
      early[0].message,
    );
  },
};

export const trafficChecks: CheckDef[] = [envelope, responseIds, stdoutClean, strictSchema, earlyRequests];
