/**
 * Which tools `mcpwire check` may call, and the calls it makes (safe by default): a tool is
 * called only when its annotations say it is read-only (`readOnlyHint: true`), when the user
 * named it in `--fixtures <file>` (with its arguments and the expected result), or with
 * `--allow-calls`. Arguments come from the fixture, else are synthesized from the input schema
 * (required properties only: default, const, first enum value, or a placeholder of the type).
 */
import type { CheckContext, ToolFixture } from './context.js';
import { isObject } from './context.js';
import { declared, listAll } from './lists.js';
import type { Outcome } from './probe.js';
import { adoptSuiteTools } from './profile.js';

/** Tools calls at most this many tools per run (read-only ones and fixtures first). */
export const MAX_TOOL_CALLS = 8;

const SLOW_NAME = /sleep|delay|wait|slow|long[-_ ]?running/i;

export interface CallPermission {
  allowed: boolean;
  /** Why (for skip details): `read-only`, `fixture`, `--allow-calls`, or why not. */
  why: string;
  fixture?: ToolFixture;
}

/** Whether the checker may call `tool` (a listed Tool object). */
export function mayCall(ctx: CheckContext, tool: Record<string, unknown>): CallPermission {
  const name = typeof tool.name === 'string' ? tool.name : '';
  const fixture = ctx.options.fixtures?.[name];
  if (fixture !== undefined) return { allowed: true, why: 'named in --fixtures', fixture };
  if (ctx.options.allowCalls === true) return { allowed: true, why: '--allow-calls' };
  const ann = isObject(tool.annotations) ? tool.annotations : {};
  if (ann.readOnlyHint === true) return { allowed: true, why: 'read-only by its annotations' };
  return { allowed: false, why: 'not read-only by its annotations, not in --fixtures (use --allow-calls to call every tool)' };
}

/** Arguments for a call: the fixture's, or synthesized from the input schema's required properties. */
export function argumentsFor(tool: Record<string, unknown>, fixture?: ToolFixture): Record<string, unknown> {
  if (fixture?.arguments !== undefined) return fixture.arguments;
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const props = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((x): x is string => typeof x === 'string') : [];
  const out: Record<string, unknown> = {};
  for (const k of required) out[k] = placeholder(props[k]);
  return out;
}

function placeholder(p: unknown): unknown {
  if (!isObject(p)) return 'mcpwire-check';
  if ('default' in p) return p.default;
  if ('const' in p) return p.const;
  if (Array.isArray(p.enum) && p.enum.length > 0) return p.enum[0];
  const type = Array.isArray(p.type) ? p.type[0] : p.type;
  switch (type) {
    case 'number':
    case 'integer':
      return typeof p.minimum === 'number' ? p.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return {};
    case 'null':
      return null;
    default:
      return 'mcpwire-check';
  }
}

export interface ToolCall {
  tool: Record<string, unknown>;
  name: string;
  args: Record<string, unknown>;
  why: string;
  fixture?: ToolFixture;
  outcome: Outcome;
}

export interface ToolCalls {
  calls: ToolCall[];
  /** Tools not called, with the reason. */
  notCalled: Array<{ name: string; why: string }>;
  /** Why nothing could be called at all (no tools capability…). */
  none?: string;
}

/** Calls every tool it may (up to MAX_TOOL_CALLS), once per session; memoized. */
export function toolCalls(ctx: CheckContext): Promise<ToolCalls> {
  return ctx.memo('tool-calls', async () => {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return { calls: [], notCalled: [], none: 'the server does not declare the tools capability' };
    const list = await listAll(ctx, s, 'tools/list');
    if (list.failed !== undefined) return { calls: [], notCalled: [], none: 'tools/list failed (see capabilities.declared-served)' };
    // A server built for the conformance suite: its reference tools are called and judged.
    adoptSuiteTools(ctx, list.items);
    const out: ToolCalls = { calls: [], notCalled: [] };
    const ordered = [...list.items].sort((a, b) => Number(ctx.options.fixtures?.[String(b.name)] !== undefined) - Number(ctx.options.fixtures?.[String(a.name)] !== undefined));
    for (const tool of ordered) {
      const name = typeof tool.name === 'string' ? tool.name : '';
      const perm = mayCall(ctx, tool);
      const execution = isObject(tool.execution) ? tool.execution : {};
      if (!perm.allowed) out.notCalled.push({ name, why: perm.why });
      else if (perm.fixture === undefined && SLOW_NAME.test(name)) out.notCalled.push({ name, why: 'takes time (used by the progress/cancellation checks)' });
      else if (execution.taskSupport === 'required') out.notCalled.push({ name, why: 'task-required (see the tasks checks)' });
      else if (out.calls.length >= MAX_TOOL_CALLS) out.notCalled.push({ name, why: `more than ${MAX_TOOL_CALLS} callable tools` });
      else {
        const args = argumentsFor(tool, perm.fixture);
        const outcome = await s.probe.request('tools/call', { name, arguments: args });
        out.calls.push({ tool, name, args, why: perm.why, ...(perm.fixture ? { fixture: perm.fixture } : {}), outcome });
      }
    }
    if (out.calls.length === 0) out.none = out.notCalled.length === 0 ? 'the server lists no tools' : `no tool may be called (${out.notCalled.slice(0, 3).map((n) => `${n.name}: ${n.why}`).join('; ')})`;
    return out;
  });
}

/**
 * The text of an `isError` result saying the tool itself does not exist ("Tool x not found",
 * "Unknown tool: x"), or undefined: such a result is no evidence of what the tool does.
 */
export function toolReportedMissing(r: Record<string, unknown>, name: string): string | undefined {
  if (r.isError !== true || !Array.isArray(r.content)) return undefined;
  const text = r.content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('\n');
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const missing = new RegExp(`(unknown|no such) tool|tool\\W+${esc}\\W+(not found|does not exist|is not (registered|available))|${esc}\\W+(not found|does not exist)`, 'i');
  return missing.test(text) ? text : undefined;
}

/** Standard base64 (RFC 4648 §4, padded). */
export function isBase64(s: unknown): boolean {
  return typeof s === 'string' && s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

/** Deep "subset" match: every key of `want` is in `got` with a matching value. */
export function matchesSubset(got: unknown, want: unknown): boolean {
  if (isObject(want)) return isObject(got) && Object.entries(want).every(([k, v]) => matchesSubset(got[k], v));
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((v, i) => matchesSubset(got[i], v));
  return Object.is(got, want);
}
