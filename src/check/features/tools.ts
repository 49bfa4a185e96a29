/**
 * Tool checks (server/tools): names (server.tools#7–#11), input/output schemas (server.tools#5,
 * basic#19), and calling an unknown tool. The only tool the checker ever calls for real is a
 * "slow" one (sleep/delay/long-running…) for the cancellation and progress checks.
 */
import { compileSchema } from '../../schema/index.js';
import { excerpt } from '../../jsonrpc/types.js';
import { isBase64, mayCall, matchesSubset, toolCalls, toolReportedMissing, type ToolCall } from '../core/calls.js';
import { describeViolation, serverMessageViolations, unclaimed } from '../core/schema.js';
import type { CheckContext, Session } from '../core/context.js';
import { isObject } from '../core/context.js';
import { declared, listAll, type Listing } from '../core/lists.js';
import { describeOutcome, messageOf } from '../core/probe.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

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

/** The calls the checker made (read-only tools, fixtures, or every tool with --allow-calls). */
async function calls(ctx: CheckContext): Promise<ToolCall[] | Verdict> {
  const c = await toolCalls(ctx);
  if (c.calls.length === 0) return notApplicable(c.none ?? 'no tool was called');
  return c.calls;
}

const annotations: CheckDef = {
  id: 'tools.annotations',
  title: 'tool annotations are booleans (hints) and a string title',
  clause: 'schema.json ToolAnnotations',
  level: 'MUST',
  async run(ctx) {
    const t = await toolList(ctx);
    if ('status' in t) return t;
    let n = 0;
    for (let i = 0; i < t.list.items.length; i++) {
      const a = t.list.items[i].annotations;
      if (a === undefined) continue;
      n++;
      const bad = !isObject(a)
        ? 'annotations is not an object'
        : (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].find((k) => a[k] !== undefined && typeof a[k] !== 'boolean') ?? (a.title !== undefined && typeof a.title !== 'string' ? 'title' : undefined));
      if (bad === undefined) continue;
      const origin = t.list.origins[i];
      origin.page?.claims.push(`/result/tools/${origin.index}/annotations`);
      return violated(`tool ${JSON.stringify(t.list.items[i].name)}: ${bad === 'annotations is not an object' ? bad : `annotations.${bad} has the wrong type (${JSON.stringify(isObject(a) ? a[bad] : a)})`}`, { name: t.list.items[i].name, annotations: a });
    }
    return n === 0 ? notApplicable('no tool has annotations') : pass(`${n} tools annotated`);
  },
};

const callResult: CheckDef = {
  id: 'tools.call-result',
  title: 'tools/call of callable tools returns a valid CallToolResult (or a JSON-RPC error)',
  clause: 'schema.json CallToolResult',
  level: 'MUST',
  async run(ctx) {
    const c = await calls(ctx);
    if ('status' in c) return c;
    for (const call of c) {
      const o = call.outcome;
      if (o.kind === 'timeout' || o.kind === 'closed') return violated(`tools/call ${JSON.stringify(call.name)} got ${describeOutcome(o)}`, undefined, { level: 'SHOULD', clause: 'basic.transports#24' });
      if (o.kind !== 'result' || o.message === undefined) continue;
      // Binary encodings are tools.content-base64's.
      const vs = unclaimed(serverMessageViolations(o.message.message, 'tools/call'), badBinaryPaths(o.message.message));
      o.message.claims.push('/result');
      if (vs.length > 0) return violated(`the result of ${JSON.stringify(call.name)} is not a valid CallToolResult: ${vs.slice(0, 3).map(describeViolation).join('; ')}`, o.message.message);
    }
    return pass(`${c.length} tools called: ${c.map((x) => `${x.name} (${x.why})`).join(', ')}`);
  },
};

const structuredContent: CheckDef = {
  id: 'tools.structured-content',
  title: 'a tool with an outputSchema returns structuredContent that conforms to it',
  clause: 'server.tools#14',
  level: 'MUST',
  async run(ctx) {
    const c = await calls(ctx);
    if ('status' in c) return c;
    const judged = c.filter((x) => isObject(x.tool.outputSchema) && x.outcome.kind === 'result' && x.outcome.result.isError !== true);
    if (judged.length === 0) return notApplicable('no successful call of a tool with an outputSchema');
    for (const call of judged) {
      const r = (call.outcome as { result: Record<string, unknown> }).result;
      if (r.structuredContent === undefined) return violated(`${JSON.stringify(call.name)} declares an outputSchema but its result has no structuredContent`, messageOf(call.outcome));
      const compiled = compileSchema(call.tool.outputSchema);
      if (!compiled.ok) continue; // tools.output-schema reports it
      const problems = compiled.validate(r.structuredContent);
      if (problems.length > 0) {
        return violated(`${JSON.stringify(call.name)}: structuredContent does not conform to its outputSchema: ${problems.slice(0, 3).map((p) => `${p.path} ${p.message}`).join('; ')}`, messageOf(call.outcome));
      }
    }
    return pass(`${judged.length} structured results validated`);
  },
};

const structuredText: CheckDef = {
  id: 'tools.structured-text',
  title: 'structuredContent is also returned as serialized JSON in a text block',
  clause: 'server.tools#13',
  level: 'SHOULD',
  async run(ctx) {
    const c = await calls(ctx);
    if ('status' in c) return c;
    const judged = c.filter((x) => x.outcome.kind === 'result' && x.outcome.result.structuredContent !== undefined);
    if (judged.length === 0) return notApplicable('no call returned structuredContent');
    for (const call of judged) {
      const r = (call.outcome as { result: Record<string, unknown> }).result;
      const texts = (Array.isArray(r.content) ? r.content : []).filter((b): b is { type: 'text'; text: string } => isObject(b) && b.type === 'text' && typeof b.text === 'string');
      const same = texts.some((b) => {
        try {
          return JSON.stringify(JSON.parse(b.text)) === JSON.stringify(r.structuredContent) || matchesSubset(JSON.parse(b.text), r.structuredContent);
        } catch {
          return false;
        }
      });
      if (!same) return violated(`${JSON.stringify(call.name)} returns structuredContent without the same JSON in a TextContent block`, messageOf(call.outcome));
    }
    return pass(`${judged.length} structured results carry their JSON as text`);
  },
};

/**
 * Instance paths of the content blocks in a result whose binary data is malformed (judged by the
 * *-base64 checks): the schema checks leave what is under them alone, so one defect is one failure.
 */
export function badBinaryPaths(message: unknown): string[] {
  const out: string[] = [];
  const r = isObject(message) && isObject(message.result) ? message.result : {};
  (Array.isArray(r.content) ? r.content : []).forEach((b, i) => binaryProblems([b]) !== undefined && out.push(`/result/content/${i}`));
  (Array.isArray(r.messages) ? r.messages : []).forEach((m, i) => isObject(m) && binaryProblems([m.content]) !== undefined && out.push(`/result/messages/${i}/content`));
  (Array.isArray(r.contents) ? r.contents : []).forEach((c, i) => isObject(c) && c.blob !== undefined && !isBase64(c.blob) && out.push(`/result/contents/${i}`));
  return out;
}

/** Every image/audio block's data (and embedded blob) in a content array. */
export function binaryProblems(content: unknown): string | undefined {
  for (const b of Array.isArray(content) ? content : []) {
    if (!isObject(b)) continue;
    if ((b.type === 'image' || b.type === 'audio') && !isBase64(b.data)) return `${b.type} content data is not base64`;
    if ((b.type === 'image' || b.type === 'audio') && (typeof b.mimeType !== 'string' || !/^[\w.+-]+\/[\w.+-]+/.test(b.mimeType))) return `${b.type} content has no valid mimeType`;
    if (b.type === 'resource' && isObject(b.resource) && b.resource.blob !== undefined && !isBase64(b.resource.blob)) return 'an embedded resource blob is not base64';
  }
  return undefined;
}

const contentBase64: CheckDef = {
  id: 'tools.content-base64',
  title: 'image/audio content in tool results is base64 with a MIME type',
  clause: 'schema.json ImageContent.data',
  level: 'MUST',
  async run(ctx) {
    const c = await calls(ctx);
    if ('status' in c) return c;
    let n = 0;
    for (const call of c) {
      if (call.outcome.kind !== 'result') continue;
      const content = call.outcome.result.content;
      if (!Array.isArray(content) || !content.some((b) => isObject(b) && ['image', 'audio', 'resource'].includes(String(b.type)))) continue;
      n++;
      const bad = binaryProblems(content);
      if (bad !== undefined) {
        call.outcome.message?.claims.push(...badBinaryPaths(call.outcome.message.message));
        return violated(`${JSON.stringify(call.name)}: ${bad}`, messageOf(call.outcome));
      }
    }
    return n === 0 ? notApplicable('no call returned binary content') : pass(`${n} results with binary content`);
  },
};

const fixtureExpect: CheckDef = {
  id: 'tools.fixture-expect',
  title: 'tools named in --fixtures return the expected shape',
  clause: '--fixtures expect',
  level: 'MUST',
  async run(ctx) {
    // The calls first: the suite profile adds fixtures for the reference tools a server lists.
    const c = await calls(ctx);
    if ('status' in c) return ctx.options.fixtures === undefined ? notApplicable('no --fixtures file, no tool of the suite profile') : c;
    const judged = c.filter((x) => x.fixture?.expect !== undefined);
    if (judged.length === 0) return notApplicable('no fixture states an expected result');
    for (const call of judged) {
      const want = call.fixture!.expect!;
      const o = call.outcome;
      if (o.kind !== 'result') return violated(`${JSON.stringify(call.name)} ${JSON.stringify(call.args)} got ${describeOutcome(o)}; the fixture expects a result`, messageOf(o));
      const r = o.result;
      const content = Array.isArray(r.content) ? r.content.filter(isObject) : [];
      const problems: string[] = [];
      // An isError "tool not found" is no evidence for an expected error: the tool never ran.
      const missing = toolReportedMissing(r, call.name);
      if (missing !== undefined && (want.textIncludes === undefined || !missing.includes(want.textIncludes))) problems.push(`the server says the tool does not exist (${JSON.stringify(excerpt(missing, 120))})`);
      if (want.isError !== undefined && (r.isError === true) !== want.isError) problems.push(`isError is ${r.isError === true}, expected ${want.isError}`);
      if (want.contentTypes !== undefined && JSON.stringify(content.map((b) => b.type)) !== JSON.stringify(want.contentTypes)) problems.push(`content types ${JSON.stringify(content.map((b) => b.type))}, expected ${JSON.stringify(want.contentTypes)}`);
      if (want.textIncludes !== undefined && !content.map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n').includes(want.textIncludes)) problems.push(`text does not include ${JSON.stringify(want.textIncludes)}`);
      if (want.structuredContent !== undefined && !matchesSubset(r.structuredContent, want.structuredContent)) problems.push('structuredContent does not match the expected subset');
      if (problems.length > 0) return violated(`${JSON.stringify(call.name)}: ${problems.join('; ')}`, messageOf(o));
    }
    return pass(`${judged.length} fixture expectations met`);
  },
};

export const toolChecks: CheckDef[] = [namesFormat, namesUnique, inputSchema, outputSchema, annotations, unknownTool, callResult, structuredContent, structuredText, contentBase64, fixtureExpect];

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
    // Safe by default: only a read-only tool, a fixture, or any tool with --allow-calls.
    if (!mayCall(ctx, tool).allowed) continue;
    const fixtureArgs = ctx.options.fixtures?.[tool.name]?.arguments;
    if (fixtureArgs !== undefined) return { name: tool.name, args: () => fixtureArgs };
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
