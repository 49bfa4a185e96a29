/**
 * What the server should serve, from `--fixtures` (schemas, resources, prompts) or the built-in
 * suite profile (profile.ts): 2020-12 keywords preserved in a listed input schema, reading
 * through a URI template, resources' contents, and prompt argument substitution. Where nothing
 * states an expectation the checks are not applicable: these judge content, not shape.
 */
import type { CheckContext, Session } from '../core/context.js';
import { isObject } from '../core/context.js';
import { declared, listAll } from '../core/lists.js';
import { describeOutcome, messageOf } from '../core/probe.js';
import { expectationsFor, templateMatches } from '../core/profile.js';
import { notApplicable, pass, violated, type CheckDef, type Verdict } from '../core/types.js';
import { matchesSubset } from '../core/calls.js';

const names = (items: Array<Record<string, unknown>> | undefined, key: string): string[] =>
  (items ?? []).map((x) => x[key]).filter((x): x is string => typeof x === 'string');

async function listing(ctx: CheckContext, s: Session, method: 'tools/list' | 'resources/list' | 'resources/templates/list' | 'prompts/list', capability: string) {
  if (!declared(s, capability)) return undefined;
  const l = await listAll(ctx, s, method);
  return l.failed === undefined ? l.items : undefined;
}

/** The expectations that apply to this server (memoized), with its listings. */
function expected(ctx: CheckContext) {
  return ctx.memo('expectations', async () => {
    const s = await ctx.session();
    const tools = await listing(ctx, s, 'tools/list', 'tools');
    const resources = await listing(ctx, s, 'resources/list', 'resources');
    const templates = await listing(ctx, s, 'resources/templates/list', 'resources');
    const prompts = await listing(ctx, s, 'prompts/list', 'prompts');
    const listed = { tools: names(tools, 'name'), resources: names(resources, 'uri'), templates: names(templates, 'uriTemplate'), prompts: names(prompts, 'name') };
    return { s, tools: tools ?? [], listed, want: expectationsFor(ctx, listed) };
  });
}

const source = (fromProfile: Set<string>, k: string) => (fromProfile.has(k) ? 'the conformance suite profile' : '--fixtures');

/** The 2020-12 keywords whose loss the suite's json-schema-2020-12 scenario looks for. */
const KEYWORDS = ['$schema', '$defs', '$anchor', '$ref', 'additionalProperties', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'];

function keywordPaths(v: unknown, path = ''): string[] {
  if (!isObject(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => [...(KEYWORDS.includes(k) ? [`${path}/${k}`] : []), ...keywordPaths(x, `${path}/${k}`)]);
}

function at(v: unknown, path: string): unknown {
  return path.split('/').slice(1).reduce<unknown>((o, k) => (isObject(o) ? o[k] : undefined), v);
}

const schemaPreserved: CheckDef = {
  id: 'tools.schema-preserved',
  title: 'JSON Schema 2020-12 keywords of a tool\'s input schema are listed as served ($schema, $defs, composition, conditionals, anchors)',
  clause: 'basic#15',
  level: 'MUST',
  async run(ctx) {
    const e = await expected(ctx);
    const entries = Object.entries(e.want.schemas);
    if (entries.length === 0) return notApplicable('no input schema is expected (--fixtures "schemas", or the suite profile\'s json_schema_2020_12_tool)');
    for (const [name, schema] of entries) {
      const tool = e.tools.find((t) => t.name === name);
      if (tool === undefined) return violated(`${source(e.want.fromProfile, name)} expects tool ${JSON.stringify(name)}; tools/list does not list it`, e.listed.tools, { clause: '--fixtures expect' });
      const lost = keywordPaths(schema).filter((p) => !matchesSubset(at(tool.inputSchema, p), at(schema, p)));
      if (lost.length > 0) {
        return violated(`the input schema of ${JSON.stringify(name)} lost or changed ${lost.join(', ')}: 2020-12 schemas are carried as written`, { name, inputSchema: tool.inputSchema });
      }
      if (!matchesSubset(tool.inputSchema, schema)) return violated(`the input schema of ${JSON.stringify(name)} differs from the one expected by ${source(e.want.fromProfile, name)}`, { name, inputSchema: tool.inputSchema }, { clause: '--fixtures expect' });
    }
    return pass(`${entries.map(([n]) => n).join(', ')}: ${entries.reduce((n, [, v]) => n + keywordPaths(v).length, 0)} keywords preserved`);
  },
};

async function readExpected(ctx: CheckContext, onlyTemplates: boolean): Promise<Verdict> {
  const e = await expected(ctx);
  if (!declared(e.s, 'resources')) return notApplicable('the server does not declare the resources capability');
  // Each URI is judged once: through a template (template-read) or as a resource (fixture-expect).
  const viaTemplate = (uri: string) => !e.listed.resources.includes(uri) && e.listed.templates.some((t) => templateMatches(t, uri));
  const entries = Object.entries(e.want.resources).filter(([uri]) => viaTemplate(uri) === onlyTemplates);
  if (entries.length === 0) return notApplicable(onlyTemplates ? 'no expected resource URI expands a listed template (--fixtures "resources", or the suite profile\'s test://template/123/data)' : 'no resource is expected (--fixtures "resources", or the suite profile)');
  for (const [uri, want] of entries) {
    const o = await e.s.probe.request('resources/read', { uri });
    const from = source(e.want.fromProfile, uri);
    if (o.kind !== 'result') return violated(`${from} expects ${JSON.stringify(uri)} to be readable; resources/read got ${describeOutcome(o)}`, messageOf(o));
    const contents = Array.isArray(o.result.contents) ? o.result.contents.filter(isObject) : [];
    const first = contents[0];
    const problems: string[] = [];
    if (first === undefined) problems.push('no contents');
    else {
      if (want.kind === 'text' && typeof first.text !== 'string') problems.push('the first content has no text');
      if (want.kind === 'blob' && typeof first.blob !== 'string') problems.push('the first content has no blob');
      if (want.mimeType !== undefined && first.mimeType !== want.mimeType) problems.push(`mimeType ${JSON.stringify(first.mimeType)}, expected ${JSON.stringify(want.mimeType)}`);
      if (want.textIncludes !== undefined && !contents.some((c) => typeof c.text === 'string' && c.text.includes(want.textIncludes!))) problems.push(`no text includes ${JSON.stringify(want.textIncludes)}`);
    }
    if (problems.length > 0) return violated(`reading ${JSON.stringify(uri)}: ${problems.join('; ')} (expected by ${from})`, messageOf(o));
  }
  return pass(entries.map(([u]) => u).join(', '));
}

const templateRead: CheckDef = {
  id: 'resources.template-read',
  title: 'a URI expanded from a listed resource template can be read',
  clause: 'server/resources §Resource Templates',
  level: 'MUST',
  run: (ctx) => readExpected(ctx, true),
};

const resourceExpect: CheckDef = {
  id: 'resources.fixture-expect',
  title: 'expected resources (--fixtures or the suite profile) read as expected',
  clause: '--fixtures expect',
  level: 'MUST',
  run: (ctx) => readExpected(ctx, false),
};

const promptArgs: CheckDef = {
  id: 'prompts.arguments-substituted',
  title: 'prompts/get substitutes the arguments into the messages (expected prompts)',
  clause: 'server/prompts §Getting a Prompt',
  level: 'MUST',
  async run(ctx) {
    const e = await expected(ctx);
    if (!declared(e.s, 'prompts')) return notApplicable('the server does not declare the prompts capability');
    const entries = Object.entries(e.want.prompts);
    if (entries.length === 0) return notApplicable('no prompt is expected (--fixtures "prompts", or the suite profile\'s test_prompt_with_arguments)');
    for (const [name, want] of entries) {
      const args = want.arguments ?? {};
      const o = await e.s.probe.request('prompts/get', { name, arguments: args });
      const from = source(e.want.fromProfile, name);
      if (o.kind !== 'result') return violated(`${from} expects prompt ${JSON.stringify(name)}; prompts/get ${JSON.stringify(args)} got ${describeOutcome(o)}`, messageOf(o));
      const messages = Array.isArray(o.result.messages) ? o.result.messages : [];
      if (messages.length === 0) return violated(`prompt ${JSON.stringify(name)} returned no messages`, messageOf(o));
      const text = JSON.stringify(messages);
      const missing = (want.includes ?? Object.values(args)).filter((v) => !text.includes(v));
      if (missing.length > 0) return violated(`prompt ${JSON.stringify(name)} got arguments ${JSON.stringify(args)}; its messages do not contain ${missing.map((m) => JSON.stringify(m)).join(', ')} (not substituted)`, messageOf(o));
    }
    return pass(entries.map(([n]) => n).join(', '));
  },
};

export const expectationChecks: CheckDef[] = [schemaPreserved, templateRead, resourceExpect, promptArgs];
