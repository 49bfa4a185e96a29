/**
 * Tool checks (server/tools): names (server.tools#7–#11), input/output schemas (server.tools#5,
 * basic#19), and calling an unknown tool. The only tool the checker ever calls for real is a
 * "slow" one (sleep/delay/long-running…) for the cancellation and progress checks.
 */
import { compileSchema } from '../schema/index.js';
import type { CheckContext, Session } from './context.js';
import { isObject } from './context.js';
import { declared, listAll, type Listing } from './lists.js';
import { describeOutcome, messageOf } from './probe.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from './types.js';

export const UNKNOWN_TOOL = 'mcpwire-check-no-such-tool';
const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/;

/** The tool list, or a verdict saying why tool checks do not apply. */
async function toolList(ctx: CheckContext): Promise<{ s: Session; list: Listing } | Verdict> {
  const s = await ctx.session();
  if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
  const list = await listAll(ctx, s, 'tools/list');
  if (list.failed !== undefined) return skip('blocked: tools/list failed (see capabilities.declared-served)');
  if (list.items.length === 0) return notApplicable('the server lists no tools');
  return { s, list };
}

const namesFormat: CheckDef = {
  id: 'tools.names-format',
  title: 'tool names are 1–128 characters of A-Z a-z 0-9 _ - .',
  clause: 'server.tools#7',
  level: 'SHOULD',
  async run(ctx) {
    const t = await toolList(ctx);
    if ('status' in t) return t;
    const bad = t.list.items.filter((it) => typeof it.name !== 'string' || !NAME_RE.test(it.name));
    if (bad.length === 0) return pass(`${t.list.items.length} tools`);
    const names = bad.slice(0, 5).map((it) => JSON.stringify(it.name)).join(', ');
    return violated(
      `tool names SHOULD be 1–128 characters (server.tools#7) using only A-Z a-z 0-9 _ - . (server.tools#9), no spaces or other special characters (server.tools#10): ${names}`,
      bad[0],
    );
  },
};

const namesUnique: CheckDef = {
  id: 'tools.names-unique',
  title: 'tool names are unique',
  clause: 'server.tools#11',
  level: 'SHOULD',
  async run(ctx) {
    const t = await toolList(ctx);
    if ('status' in t) return t;
    const seen = new Set<unknown>();
    for (const it of t.list.items) {
      if (seen.has(it.name)) return violated(`tool names SHOULD be unique within a server; ${JSON.stringify(it.name)} is listed twice`, it);
      seen.add(it.name);
    }
    return pass();
  },
};

/** Judges one schema-valued property of every tool; claims the offending paths for the schema check. */
async function judgeSchemas(t: { list: Listing }, key: 'inputSchema' | 'outputSchema', required: boolean): Promise<{ bad: string[]; evidence?: unknown; checked: number }> {
  const bad: string[] = [];
  let evidence: unknown;
  let checked = 0;
  for (let i = 0; i < t.list.items.length; i++) {
    const tool = t.list.items[i];
    const schema = tool[key];
    if (schema === undefined && !required) continue;
    checked++;
    let problem: string | undefined;
    if (!isObject(schema)) problem = `${key} is ${schema === null ? 'null' : typeof schema}, not a JSON Schema object`;
    else {
      const c = compileSchema(schema);
      if (!c.ok && c.unsupportedDialect === undefined) problem = `${key} does not compile: ${c.schemaError.slice(0, 200)}`;
    }
    if (problem === undefined) continue;
    bad.push(`${JSON.stringify(tool.name)}: ${problem}`);
    evidence ??= { name: tool.name, [key]: schema };
    const origin = t.list.origins[i];
    origin.page?.claims.push(`/result/tools/${origin.index}/${key}`);
  }
  return { bad, evidence, checked };
}

const inputSchema: CheckDef = {
  id: 'tools.input-schema',
  title: 'every inputSchema is a JSON Schema object that compiles',
  clause: 'server.tools#5',
  level: 'MUST',
  async run(ctx) {
    const t = await toolList(ctx);
    if ('status' in t) return t;
    const r = await judgeSchemas(t, 'inputSchema', true);
    if (r.bad.length === 0) return pass(`${r.checked} schemas compiled`);
    return violated(`inputSchema MUST be a valid JSON Schema object: ${r.bad.slice(0, 3).join('; ')}`, r.evidence);
  },
};

const outputSchema: CheckDef = {
  id: 'tools.output-schema',
  title: 'every outputSchema is a JSON Schema that compiles',
  clause: 'basic#19',
  level: 'MUST',
  async run(ctx) {
    const t = await toolList(ctx);
    if ('status' in t) return t;
    const r = await judgeSchemas(t, 'outputSchema', false);
    if (r.checked === 0) return notApplicable('no tool declares an outputSchema');
    if (r.bad.length === 0) return pass(`${r.checked} schemas compiled`);
    return violated(`schemas MUST be valid according to their declared or default dialect: ${r.bad.slice(0, 3).join('; ')}`, r.evidence);
  },
};

const unknownTool: CheckDef = {
  id: 'tools.unknown-tool',
  title: 'tools/call of an unknown tool is a protocol error (JSON-RPC error, e.g. -32602)',
  clause: 'server/tools §Error Handling',
  level: 'MUST',
  async run(ctx) {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
    const o = await s.probe.request('tools/call', { name: UNKNOWN_TOOL, arguments: {} });
    if (o.kind === 'error') return pass(`error ${o.error.code}${o.error.code === -32602 ? '' : ' (the spec example uses -32602)'}`);
    if (o.kind === 'result' && o.result.isError === true) {
      return violated('an unknown tool was reported as a tool execution error (isError: true); the tools page lists unknown tools under protocol errors (a JSON-RPC error such as -32602)', messageOf(o), { level: 'SHOULD' });
    }
    if (o.kind === 'result') return violated('a call to a tool that does not exist was answered with success; unknown tools are a protocol error (JSON-RPC error -32602)', messageOf(o));
    return violated(`tools/call of an unknown tool got ${describeOutcome(o)}`);
  },
};

export const toolChecks: CheckDef[] = [namesFormat, namesUnique, inputSchema, outputSchema, unknownTool];

// ---- the slow tool (cancellation, progress) ----------------------------------------------------

const SLOW_NAME = /sleep|delay|wait|slow|long[-_ ]?running/i;
const TIME_PROP = /duration|seconds|secs|millis|ms$|delay|sleep|wait|time/i;

export interface SlowTool {
  name: string;
  /** Arguments for a run of about `targetMs`. */
  args(targetMs: number): Record<string, unknown>;
}

/** A tool that plausibly takes a while, with arguments for a run of about `targetMs`. */
export async function pickSlowTool(ctx: CheckContext): Promise<SlowTool | undefined> {
  const forced = ctx.options.slowTool;
  if (forced !== undefined) return { name: forced.name, args: () => forced.args };
  const t = await toolList(ctx);
  if ('status' in t) return undefined;
  for (const tool of t.list.items) {
    if (typeof tool.name !== 'string' || !SLOW_NAME.test(tool.name) || !isObject(tool.inputSchema)) continue;
    const props = isObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    const timeProp = Object.keys(props).find((k) => TIME_PROP.test(k) && isNumeric(props[k]));
    if (timeProp === undefined) continue;
    const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.filter((x): x is string => typeof x === 'string') : [];
    return { name: tool.name, args: (ms) => slowArgs(props, required, timeProp, ms) };
  }
  return undefined;
}

function isNumeric(p: unknown): boolean {
  return isObject(p) && (p.type === 'number' || p.type === 'integer');
}

function slowArgs(props: Record<string, unknown>, required: string[], timeProp: string, ms: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of required) {
    const p = props[k];
    const type = isObject(p) ? p.type : undefined;
    out[k] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? false : 'x';
  }
  out[timeProp] = /ms$|milli/i.test(timeProp) ? ms : Math.max(1, Math.round(ms / 1000));
  if ('steps' in props && isNumeric(props.steps)) out.steps = Math.max(2, Math.round(ms / 250));
  return out;
}
