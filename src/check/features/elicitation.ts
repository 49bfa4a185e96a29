/**
 * Elicitation requests (client/elicitation): on a connection that declares the elicitation
 * capability (every request declined), the checker calls the tools whose names say they elicit
 * (only tools it may call: read-only, --fixtures, --allow-calls) and judges every
 * elicitation/create the server sends: form mode carries a message and a requestedSchema that is
 * the restricted subset (a flat object of primitive properties); URL mode a valid url and an
 * elicitationId.
 */
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { argumentsFor, mayCall } from '../core/calls.js';
import { declared } from '../core/lists.js';
import { describeOutcome } from '../core/probe.js';
import { describeViolation, serverMessageViolations } from '../core/schema.js';
import { BlockedError, notApplicable, pass, violated, type CheckDef } from '../core/types.js';

const ELICIT = /elicit/i;
const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

/** Why a form-mode requestedSchema is outside the restricted subset, or undefined. */
export function requestedSchemaProblem(s: unknown): string | undefined {
  if (!isObject(s) || s.type !== 'object') return 'requestedSchema must be an object schema ("type": "object")';
  const props = isObject(s.properties) ? s.properties : undefined;
  if (props === undefined) return 'requestedSchema has no "properties" object';
  for (const [k, p] of Object.entries(props)) {
    if (!isObject(p)) return `property "${k}" is not a schema`;
    if (p.type === 'array') {
      const items = isObject(p.items) ? p.items : {};
      if (!Array.isArray(items.enum) && !Array.isArray(items.anyOf)) return `property "${k}": an array is only allowed as a multi-select enum (items with enum/anyOf)`;
      continue;
    }
    if (typeof p.type !== 'string' || !PRIMITIVE.has(p.type)) return `property "${k}" has type ${JSON.stringify(p.type)}: only string, number, integer, boolean (and enums) are allowed, no nesting`;
  }
  return undefined;
}

const requests: CheckDef = {
  id: 'elicitation.requests',
  title: 'elicitation/create: form mode uses the restricted requestedSchema subset; URL mode a valid url and elicitationId',
  clause: 'client.elicitation#9',
  level: 'MUST',
  async run(ctx: CheckContext) {
    const s = await ctx.session();
    if (!declared(s, 'tools')) return notApplicable('the server does not declare the tools capability');
    // A connection of its own that declares elicitation (servers may list elicitation tools only then).
    const probe = await ctx.open();
    probe.conn.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }));
    const init = await probe.initialize(undefined, { elicitation: { form: {}, url: {} } });
    if (init.kind !== 'result') throw new BlockedError(`blocked: initialize got ${describeOutcome(init)}`);
    await probe.initialized();
    const items: Record<string, unknown>[] = [];
    let cursor: unknown;
    for (let page = 0; page < 20; page++) {
      const o = await probe.request('tools/list', cursor === undefined ? {} : { cursor });
      // The tool checks judge the list (of the shared session); this copy is not judged twice.
      if (o.kind === 'result') o.message?.claims.push('');
      if (o.kind !== 'result' || !Array.isArray(o.result.tools)) break;
      items.push(...o.result.tools.filter(isObject));
      cursor = o.result.nextCursor;
      if (cursor === undefined || cursor === null) break;
    }
    const cands = items.filter((t) => typeof t.name === 'string' && ELICIT.test(t.name));
    if (cands.length === 0) return notApplicable('no tool named like *elicit*');
    const tools = cands.filter((t) => mayCall(ctx, t).allowed && !(isObject(t.execution) && t.execution.taskSupport === 'required'));
    if (tools.length === 0) return notApplicable(`${cands.map((t) => String(t.name)).slice(0, 3).join(', ')} may not be called (not read-only; name one in --fixtures or use --allow-calls)`);
    for (const t of tools.slice(0, 3)) await probe.request('tools/call', { name: t.name, arguments: argumentsFor(t, ctx.options.fixtures?.[String(t.name)]) }, { timeoutMs: ctx.timeoutMs });
    const seen = ctx.traffic.records.filter((r) => r.probe === probe.id && r.dir === 'in' && r.kind === 'request' && (r.message as { method?: unknown }).method === 'elicitation/create');
    if (seen.length === 0) return notApplicable(`${tools.map((t) => String(t.name)).slice(0, 3).join(', ')} sent no elicitation/create`);
    for (const r of seen) {
      const p = (r.message as { params?: Record<string, unknown> }).params ?? {};
      const mode = p.mode ?? 'form';
      let why: string | undefined;
      if (typeof p.message !== 'string') why = 'every elicitation request MUST include a "message" (client.elicitation#7)';
      else if (mode === 'form') {
        const bad = requestedSchemaProblem(p.requestedSchema);
        const schemaVs = serverMessageViolations(r.message).filter((v) => v.instancePath.startsWith('/params/requestedSchema'));
        why = bad ?? (schemaVs.length > 0 ? describeViolation(schemaVs[0]) : undefined);
        if (why !== undefined) why = `form mode requests MUST carry a requestedSchema of the restricted subset: ${why}`;
      } else if (mode === 'url') {
        let ok = false;
        try {
          ok = typeof p.url === 'string' && new URL(p.url).protocol.length > 0;
        } catch {
          ok = false;
        }
        if (!ok) why = `the url parameter MUST contain a valid URL (client.elicitation#12): ${JSON.stringify(p.url)}`;
        else if (typeof p.elicitationId !== 'string') why = 'URL mode requests MUST include an elicitationId (client.elicitation#11)';
      } else why = `unknown mode ${JSON.stringify(mode)}`;
      if (why !== undefined) {
        r.claims.push('/params');
        return violated(why, r.message);
      }
    }
    return pass(`${seen.length} elicitation requests`);
  },
};

/** The values a property allows (enum, titled oneOf/anyOf consts), or undefined when free. */
function allowed(p: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(p.enum)) return p.enum;
  const titled = Array.isArray(p.oneOf) ? p.oneOf : Array.isArray(p.anyOf) ? p.anyOf : undefined;
  return titled?.map((o: unknown) => (isObject(o) ? o.const : undefined));
}

/** Why a form property's enum form or default is wrong (SEP-1034 defaults, SEP-1330 enums), or undefined. */
export function defaultEnumProblem(k: string, p: Record<string, unknown>): string | undefined {
  const single = allowed(p);
  if (Array.isArray(p.enumNames) && (!Array.isArray(p.enum) || p.enumNames.length !== p.enum.length)) return `property "${k}": enumNames must name each enum value (${JSON.stringify(p.enumNames)} for ${JSON.stringify(p.enum)})`;
  for (const list of [p.oneOf, p.anyOf, isObject(p.items) ? p.items.anyOf : undefined]) {
    if (Array.isArray(list) && !list.every((o) => isObject(o) && typeof o.const === 'string' && typeof o.title === 'string')) return `property "${k}": a titled enum option needs a string "const" and "title" (${JSON.stringify(list)})`;
  }
  if (single !== undefined && (single.length === 0 || !single.every((v) => typeof v === 'string'))) return `property "${k}": enum values must be strings (${JSON.stringify(single)})`;
  if (!('default' in p)) return undefined;
  const d = p.default;
  const typeOk =
    p.type === 'string' ? typeof d === 'string' : p.type === 'boolean' ? typeof d === 'boolean' : p.type === 'integer' ? Number.isInteger(d) : p.type === 'number' ? typeof d === 'number' : p.type === 'array' ? Array.isArray(d) : true;
  if (!typeOk) return `property "${k}": default ${JSON.stringify(d)} is not a ${String(p.type)}`;
  if (single !== undefined && !(single as unknown[]).includes(d)) return `property "${k}": default ${JSON.stringify(d)} is not one of ${JSON.stringify(single)}`;
  const multi = isObject(p.items) ? allowed(p.items) : undefined;
  if (multi !== undefined && Array.isArray(d) && !d.every((v) => multi.includes(v))) return `property "${k}": default ${JSON.stringify(d)} holds values not among ${JSON.stringify(multi)}`;
  return undefined;
}

const defaultsEnums: CheckDef = {
  id: 'elicitation.defaults-enums',
  title: 'elicitation form fields: defaults match their type and options; enum forms are well-formed (titled, legacy enumNames, multi-select)',
  clause: 'schema.json PrimitiveSchemaDefinition',
  level: 'MUST',
  async run(ctx: CheckContext) {
    const seen = ctx.traffic.records.filter((r) => r.dir === 'in' && r.kind === 'request' && (r.message as { method?: unknown }).method === 'elicitation/create');
    const forms = seen.filter((r) => ((r.message as { params?: Record<string, unknown> }).params?.mode ?? 'form') === 'form');
    if (forms.length === 0) return notApplicable('no form-mode elicitation/create was seen (elicitation.requests provokes them)');
    let fields = 0;
    for (const r of forms) {
      const schema = (r.message as { params?: { requestedSchema?: unknown } }).params?.requestedSchema;
      const props = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
      for (const [k, p] of Object.entries(props)) {
        if (!isObject(p)) continue;
        fields++;
        const why = defaultEnumProblem(k, p);
        if (why !== undefined) return violated(why, r.message);
      }
    }
    return pass(`${fields} fields in ${forms.length} form requests`);
  },
};

export const elicitationChecks: CheckDef[] = [requests, defaultsEnums];
