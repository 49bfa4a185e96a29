/**
 * Surface diff rules (src/check/run/snapshot.ts), table-driven: what breaks callers (removed tool,
 * new required argument, narrowed type, removed enum value, argument now required, removed
 * output field, removed capability/prompt/resource) vs what is additive.
 */
import { describe, expect, it } from 'vitest';
import { diffSurfaces, normalize, type Surface } from '../../src/check/run/snapshot.js';

const base = (): Surface => ({
  snapshotVersion: 1,
  protocolVersion: '2025-11-25',
  serverInfo: { name: 's', version: '1' },
  capabilities: { tools: {}, prompts: {}, resources: {} },
  tools: [
    {
      name: 'search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' }, limit: { type: 'number' }, mode: { type: 'string', enum: ['fast', 'deep'] } }, required: ['q'] },
      outputSchema: { type: 'object', properties: { hits: { type: 'array', items: { type: 'string' } }, total: { type: 'integer' } }, required: ['hits', 'total'] },
    },
    { name: 'ping', inputSchema: { type: 'object' } },
  ],
  resources: [{ uri: 'file:///a', name: 'a', mimeType: 'text/plain' }],
  resourceTemplates: [{ uriTemplate: 'file:///{p}', name: 'p' }],
  prompts: [{ name: 'sum', arguments: [{ name: 'topic', required: true }, { name: 'tone' }] }],
});

type Edit = (s: Surface) => void;
const tool = (s: Surface, n: string) => s.tools.find((t) => t.name === n) as { inputSchema: Record<string, any>; outputSchema: Record<string, any> };

const cases: Array<[string, Edit, 'breaking' | 'additive' | 'other', RegExp]> = [
  ['removed tool', (s) => void (s.tools = s.tools.filter((t) => t.name !== 'ping')), 'breaking', /tool "ping" removed/],
  ['new required argument', (s) => {
    const i = tool(s, 'search').inputSchema;
    i.properties.lang = { type: 'string' };
    i.required.push('lang');
  }, 'breaking', /new required argument "lang"/],
  ['new optional argument', (s) => void (tool(s, 'search').inputSchema.properties.lang = { type: 'string' }), 'additive', /new optional argument "lang"/],
  ['narrowed type (number → integer)', (s) => void (tool(s, 'search').inputSchema.properties.limit = { type: 'integer' }), 'breaking', /type narrowed/],
  ['widened input type', (s) => void (tool(s, 'search').inputSchema.properties.q = { type: ['string', 'number'] }), 'additive', /type widened/],
  ['enum value removed', (s) => void (tool(s, 'search').inputSchema.properties.mode.enum = ['fast']), 'breaking', /enum value\(s\) removed: "deep"/],
  ['enum value added', (s) => void (tool(s, 'search').inputSchema.properties.mode.enum = ['fast', 'deep', 'auto']), 'additive', /enum value\(s\) added/],
  ['argument removed', (s) => void delete tool(s, 'search').inputSchema.properties.limit, 'breaking', /argument "limit" removed/],
  ['optional argument now required', (s) => void tool(s, 'search').inputSchema.required.push('limit'), 'breaking', /"limit" is now required/],
  ['output field removed', (s) => void delete tool(s, 'search').outputSchema.properties.total, 'breaking', /output field "total" removed/],
  ['output field may be absent', (s) => void (tool(s, 'search').outputSchema.required = ['hits']), 'breaking', /"total" may now be absent/],
  ['output type widened', (s) => void (tool(s, 'search').outputSchema.properties.total = { type: 'number' }), 'breaking', /type widened/],
  ['capability removed', (s) => void delete s.capabilities.resources, 'breaking', /capability "resources" removed/],
  ['resource removed', (s) => void (s.resources = []), 'breaking', /resource "file:\/\/\/a" removed/],
  ['prompt argument now required', (s) => void ((s.prompts[0].arguments as Array<Record<string, unknown>>)[1].required = true), 'breaking', /"tone" is now required/],
  ['new tool', (s) => void s.tools.push({ name: 'zeta', inputSchema: { type: 'object' } }), 'additive', /tool "zeta" added/],
  ['version bump', (s) => void (s.serverInfo = { name: 's', version: '2' }), 'other', /serverInfo/],
];

describe('snapshot diff', () => {
  it('the same surface has no changes; normalize sorts keys and drops _meta', () => {
    const d = diffSurfaces(base(), base());
    expect([d.breaking, d.additive, d.other]).toEqual([[], [], []]);
    expect(JSON.stringify(normalize({ b: 1, a: { _meta: { x: 1 }, d: 2, c: 3 } }))).toBe('{"a":{"c":3,"d":2},"b":1}');
  });
  for (const [what, edit, kind, message] of cases) {
    it(`${what} → ${kind}`, () => {
      const next = base();
      edit(next);
      const d = diffSurfaces(base(), next);
      const all = [...d.breaking, ...d.additive, ...d.other];
      const hit = all.find((c) => message.test(c.message) || message.test(c.path));
      expect(hit, JSON.stringify(all)).toBeDefined();
      expect(hit!.kind).toBe(kind);
      if (kind !== 'breaking') expect(d.breaking, JSON.stringify(d.breaking)).toEqual([]);
    });
  }
});
