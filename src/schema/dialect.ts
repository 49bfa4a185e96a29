/**
 * Which JSON Schema dialect a schema is written in, from its `$schema` (basic: "Clients and
 * servers MUST support JSON Schema 2020-12 for schemas without an explicit `$schema` field",
 * basic#15). Supported (basic#14, basic#18): 2020-12 (the default), 2019-09, draft-07 and
 * draft-06. Anything else — draft-04 and older, a non-string, an unknown URI — is an
 * "unsupported dialect" result the caller reports (basic#17); it is never guessed at.
 */

export type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06';

export type DialectResult = { dialect: Dialect } | { unsupported: string };

/** The dialects this module validates, in the order the docs list them. */
export const SUPPORTED_DIALECTS: readonly Dialect[] = ['2020-12', '2019-09', 'draft-07', 'draft-06'];

// Only the official meta-schema URIs (http or https, with or without the empty fragment).
const URIS: ReadonlyArray<[RegExp, Dialect]> = [
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, '2020-12'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, '2019-09'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, 'draft-07'],
  [/^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, 'draft-06'],
];

/** The dialect of `schema` (2020-12 when it has no `$schema`), or why it is unsupported. */
export function dialectOf(schema: unknown): DialectResult {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return { dialect: '2020-12' };
  const s = (schema as { $schema?: unknown }).$schema;
  if (s === undefined) return { dialect: '2020-12' };
  if (typeof s !== 'string') return { unsupported: String(JSON.stringify(s)).slice(0, 100) };
  const hit = URIS.find(([re]) => re.test(s));
  return hit ? { dialect: hit[1] } : { unsupported: s.slice(0, 200) };
}
