/**
 * A tool's JSON Schemas as a signature people read: `get-sum(a: number, b: number)`,
 * optional parameters with `?`, enums as `"a" | "b"`, defaults as `= 3`, arrays as `T[]`, and
 * `→ { … }` when the tool declares an `outputSchema`. Only for display: the schema itself is what
 * `tools --schema` / `--json` print, and what `call` validates against.
 */
import { safeText } from './output.js';

type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A literal value, short. */
function literal(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return safeText(text, 40);
}

/** The type of a schema, as text (`string`, `number[]`, `"a" | "b"`, `{ x: number }`…). */
export function typeText(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'any';
  if (schema === false) return 'never';
  if (!isObj(schema)) return 'any';
  if (Array.isArray(schema.enum)) {
    const values = schema.enum.slice(0, 8).map(literal);
    return schema.enum.length > 8 ? `${values.join(' | ')} | …` : values.join(' | ');
  }
  if ('const' in schema) return literal(schema.const);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.length > 0) return list.map((s) => typeText(s, depth)).join(' | ');
  }
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => typeText({ ...schema, type: t }, depth)).join(' | ');
  switch (type) {
    case 'array': {
      const item = Array.isArray(schema.items) ? 'any' : typeText(schema.items, depth + 1);
      return /[ |]/.test(item) && !item.startsWith('{') ? `(${item})[]` : `${item}[]`;
    }
    case 'object': {
      const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
      if (props.length === 0 || depth >= 1) return 'object';
      return `{ ${params(schema, depth + 1).join(', ')} }`;
    }
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
    case 'null':
      return type;
    default:
      return isObj(schema.properties) ? typeText({ ...schema, type: 'object' }, depth) : 'any';
  }
}

/** `name?: type = default` for each property of an object schema, in the schema's order. */
export function params(schema: unknown, depth = 0): string[] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  return Object.entries(schema.properties).map(([name, prop]) => {
    const opt = required.has(name) ? '' : '?';
    const def = isObj(prop) && 'default' in prop ? ` = ${literal(prop.default)}` : '';
    return `${safeText(name, 64)}${opt}: ${typeText(prop, depth)}${def}`;
  });
}

/** The one-line signature of a tool. */
export function signature(tool: { name: string; inputSchema?: unknown; outputSchema?: unknown }): string {
  const out = tool.outputSchema !== undefined ? ` → ${typeText(tool.outputSchema)}` : '';
  return `${safeText(tool.name, 128)}(${params(tool.inputSchema).join(', ')})${out}`;
}

/** One line per parameter: `  a: number (required) — First number`. */
export function paramLines(inputSchema: unknown): string[] {
  if (!isObj(inputSchema) || !isObj(inputSchema.properties)) return [];
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required : []);
  return Object.entries(inputSchema.properties).map(([name, prop]) => {
    const p = isObj(prop) ? prop : {};
    const bits = [required.has(name) ? 'required' : 'optional'];
    if ('default' in p) bits.push(`default ${literal(p.default)}`);
    const desc = typeof p.description === 'string' && p.description !== '' ? ` — ${safeText(p.description, 300)}` : '';
    return `${safeText(name, 64)}: ${typeText(prop, 1)} (${bits.join(', ')})${desc}`;
  });
}
