/**
 * Capability declarations against behaviour: what is not declared must not be served (server
 * pages: "Servers that support tools MUST declare the tools capability", …), and what is
 * declared must be served (the initialize result states the server's own capabilities).
 */
import type { CheckContext, Session } from '../core/context.js';
import { declared, LIST_CAPABILITY, listAll, type ListMethod, type Listing } from '../core/lists.js';
import { describeOutcome, messageOf, type Outcome } from '../core/probe.js';
import { notApplicable, pass, violated, type CheckDef, type Level } from '../core/types.js';

interface Probing {
  capability: string;
  method: string;
  params: Record<string, unknown>;
  /** The clause obliging a server that serves this to declare the capability. */
  clause: string;
}

export const COMPLETE_PROBE_PARAMS = {
  ref: { type: 'ref/prompt', name: 'mcpwire-check-no-such-prompt' },
  argument: { name: 'mcpwire-check', value: '' },
};

const PROBES: Probing[] = [
  { capability: 'tools', method: 'tools/list', params: {}, clause: 'server.tools#3' },
  { capability: 'resources', method: 'resources/list', params: {}, clause: 'server.resources#1' },
  { capability: 'prompts', method: 'prompts/list', params: {}, clause: 'server.prompts#1' },
  { capability: 'completions', method: 'completion/complete', params: COMPLETE_PROBE_PARAMS, clause: 'server.utilities.completion#1' },
  { capability: 'logging', method: 'logging/setLevel', params: { level: 'info' }, clause: 'server.utilities.logging#1' },
];

interface Finding {
  level: Level;
  text: string;
  clause?: string;
  evidence?: unknown;
}

function verdictOf(findings: Finding[], okText: string) {
  if (findings.length === 0) return pass(okText);
  const worst = findings.find((f) => f.level === 'MUST') ?? findings[0];
  return violated(findings.map((f) => f.text).join('; '), worst.evidence, { level: worst.level, ...(worst.clause ? { clause: worst.clause } : {}) });
}

const undeclaredRefused: CheckDef = {
  id: 'capabilities.undeclared-refused',
  title: 'methods of undeclared capabilities are refused with -32601',
  clause: 'server.tools#3',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const todo = PROBES.filter((p) => !declared(s, p.capability));
    if (todo.length === 0) return notApplicable('every probed capability (tools, resources, prompts, completions, logging) is declared');
    const findings: Finding[] = [];
    for (const p of todo) {
      const o = await s.probe.request(p.method, p.params);
      if (o.kind === 'error' && o.error.code === -32601) continue;
      if (o.kind === 'result') {
        findings.push({
          level: 'MUST',
          clause: p.clause,
          evidence: messageOf(o),
          text: `"${p.capability}" is not declared but ${p.method} was served (${p.clause}: a server that supports it MUST declare it)`,
        });
      } else {
        findings.push({
          level: 'SHOULD',
          clause: 'jsonrpc-2.0 §5.1',
          evidence: messageOf(o),
          text: `${p.method} (capability "${p.capability}" not declared) got ${describeOutcome(o)}; expected -32601 (Method not found)`,
        });
      }
    }
    return verdictOf(findings, `${todo.map((p) => p.method).join(', ')} → -32601`);
  },
};

function listFailure(l: Listing): Finding | undefined {
  if (l.failed === undefined) return undefined;
  const o = l.failed.outcome;
  const notServed = o.kind === 'error' && o.error.code === -32601;
  return {
    level: 'MUST',
    evidence: messageOf(o),
    text: notServed
      ? `"${LIST_CAPABILITY[l.method]}" is declared but ${l.method} is not served (-32601)`
      : `"${LIST_CAPABILITY[l.method]}" is declared but ${l.method} (page ${l.failed.page}) got ${describeOutcome(o)}`,
  };
}

async function subscribeServed(s: Session, ctx: CheckContext): Promise<Finding | undefined> {
  const caps = s.capabilities.resources as Record<string, unknown>;
  if (caps.subscribe !== true) return undefined;
  const list = await listAll(ctx, s, 'resources/list');
  const uri = typeof list.items[0]?.uri === 'string' ? list.items[0].uri : 'mcpwire-check://no-such-resource';
  const o: Outcome = await s.probe.request('resources/subscribe', { uri });
  if (o.kind === 'result') await s.probe.request('resources/unsubscribe', { uri });
  if (o.kind === 'error' && o.error.code === -32601) {
    return { level: 'MUST', evidence: messageOf(o), text: '"resources.subscribe" is declared but resources/subscribe is not served (-32601)' };
  }
  return undefined;
}

const declaredServed: CheckDef = {
  id: 'capabilities.declared-served',
  title: 'declared capabilities are served (their list methods work)',
  clause: 'basic.lifecycle#3',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    const methods = (Object.keys(LIST_CAPABILITY) as ListMethod[]).filter((m) => declared(s, LIST_CAPABILITY[m]));
    const findings: Finding[] = [];
    for (const m of methods) {
      const f = listFailure(await listAll(ctx, s, m));
      // resources/templates/list: a server without templates may not implement it; only a SHOULD.
      if (f !== undefined) findings.push(m === 'resources/templates/list' && f.text.includes('-32601') ? { ...f, level: 'SHOULD' } : f);
    }
    if (declared(s, 'resources')) {
      const f = await subscribeServed(s, ctx);
      if (f !== undefined) findings.push(f);
    }
    if (declared(s, 'completions')) {
      const o = await s.probe.request('completion/complete', COMPLETE_PROBE_PARAMS);
      if (o.kind === 'error' && o.error.code === -32601) {
        findings.push({ level: 'MUST', evidence: messageOf(o), text: '"completions" is declared but completion/complete is not served (-32601)' });
      }
    }
    if (methods.length === 0 && !declared(s, 'completions')) return notApplicable('the server declares none of tools, resources, prompts, completions');
    return verdictOf(findings, `served: ${methods.join(', ')}${declared(s, 'completions') ? ', completion/complete' : ''}`);
  },
};

export const capabilityChecks: CheckDef[] = [undeclaredRefused, declaredServed];
