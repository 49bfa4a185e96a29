/**
 * JSON-RPC-level checks on the shared session: ping, unknown methods, invalid params.
 */
import { isObject } from '../core/context.js';
import { declared } from '../core/lists.js';
import { describeOutcome, messageOf, type Outcome } from '../core/probe.js';
import { notApplicable, pass, violated, type CheckDef, type Level, type Verdict } from '../core/types.js';

export const UNKNOWN_METHOD = 'mcpwire/check-no-such-method';

const ping: CheckDef = {
  id: 'ping.empty-result',
  title: 'ping is answered promptly with an empty result',
  clause: 'basic.utilities.ping#1',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const o = await s.probe.request('ping');
    if (o.kind !== 'result') return violated(`the receiver MUST respond to ping with an empty result; it sent ${describeOutcome(o)}`, messageOf(o));
    const extra = Object.keys(o.result).filter((k) => k !== '_meta');
    if (extra.length > 0) {
      return violated(`the ping result MUST be empty, but it has ${extra.map((k) => JSON.stringify(k)).join(', ')}`, messageOf(o));
    }
    return pass();
  },
};

const unknownMethod: CheckDef = {
  id: 'jsonrpc.unknown-method',
  title: `an unknown method (${UNKNOWN_METHOD}) gets error -32601`,
  clause: 'jsonrpc-2.0 §5.1',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const o = await s.probe.request(UNKNOWN_METHOD, {});
    if (o.kind === 'error' && o.error.code === -32601) return pass();
    if (o.kind === 'result') {
      return violated(`a request for a method that does not exist was answered with success; JSON-RPC 2.0 requires error -32601 (Method not found)`, messageOf(o));
    }
    return violated(`a request for a method that does not exist MUST get error -32601 (Method not found); it got ${describeOutcome(o)}`, messageOf(o));
  },
};

interface Probe3 {
  method: string;
  params: Record<string, unknown>;
  what: string;
}

const invalidParams: CheckDef = {
  id: 'jsonrpc.invalid-params',
  title: 'requests missing required params get error -32602',
  clause: 'jsonrpc-2.0 §5.1',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const candidates: Probe3[] = [];
    if (declared(s, 'tools')) candidates.push({ method: 'tools/call', params: { arguments: {} }, what: 'tools/call without "name"' });
    if (declared(s, 'resources')) candidates.push({ method: 'resources/read', params: {}, what: 'resources/read without "uri"' });
    if (declared(s, 'prompts')) candidates.push({ method: 'prompts/get', params: {}, what: 'prompts/get without "name"' });
    if (candidates.length === 0) return notApplicable('the server declares none of tools, resources, prompts');
    return judgeAll(candidates, await Promise.all(candidates.map((c) => s.probe.request(c.method, c.params))));
  },
};

function judgeAll(candidates: Probe3[], outcomes: Outcome[]): Verdict {
  const failures: string[] = [];
  const warnings: string[] = [];
  let evidence: unknown;
  outcomes.forEach((o, i) => {
    const what = candidates[i].what;
    if (o.kind === 'error' && o.error.code === -32602) return;
    if (o.kind === 'error') {
      warnings.push(`${what} got error ${o.error.code}, not -32602 (Invalid params)`);
    } else if (o.kind === 'result' && !(isObject(o.result) && o.result.isError === true)) {
      failures.push(`${what} was answered with success: a request that fails the schema MUST be refused with a JSON-RPC error (-32602)`);
    } else if (o.kind === 'result') {
      warnings.push(`${what} got an isError result; a malformed request is a protocol error (-32602)`);
    } else {
      failures.push(`${what} got ${describeOutcome(o)}`);
    }
    evidence ??= messageOf(o);
  });
  if (failures.length === 0 && warnings.length === 0) return pass(`${candidates.map((c) => c.method).join(', ')} → -32602`);
  const level: Level = failures.length > 0 ? 'MUST' : 'SHOULD';
  return violated([...failures, ...warnings].join('; '), evidence, { level });
}

export const jsonrpcChecks: CheckDef[] = [ping, unknownMethod, invalidParams];
