/**
 * The only place that builds ajv instances. Options are the same for every user:
 * `strict: false` (servers send schemas with keywords ajv does not know), `allErrors: true`
 * (flat generated code: with `false` ajv nests one block per property and a schema with a few
 * thousand properties overflows the stack), no logging, and `format` asserted only on request
 * (in 2020-12 and 2019-09 `format` is an annotation unless the validator opts in; draft-07
 * leaves it optional; basic#16).
 *
 * Two kinds of instance:
 * - a *meta* instance per dialect, shared, used only for `validateSchema` (is this a valid
 *   schema of its dialect?), which registers nothing;
 * - a *compiler* instance per compiled schema (`meta: false`, `validateSchema: false`), so every
 *   `$id`, `$anchor` and `$ref` a schema brings lives and dies with its own validator: no shared
 *   registry, nothing for two schemas with the same `$id` to collide on.
 */
import { createRequire } from 'node:module';
import type AjvDraft07 from 'ajv';
import type { ErrorObject } from 'ajv';
import { packageFile } from '../util/package-files.js';
import type { Dialect } from './dialect.js';

export type Ajv = InstanceType<typeof AjvDraft07.default>;

export interface AjvOptions {
  /** Assert `format` (email, uri, date-time…) instead of treating it as an annotation. */
  assertFormats?: boolean;
  /** Keep `schema`/`parentSchema`/`data` on errors (strict mode maps them to schema paths). */
  verbose?: boolean;
  /** Load the dialect's meta-schemas and check schemas against them when added. */
  meta?: boolean;
}

/**
 * ajv and ajv-formats are CommonJS: each dialect's class, the formats and draft-06's
 * meta-schema are required on first use, synchronously, so a process that never compiles a
 * schema (most CLI commands, a host whose servers declare no schemas) never loads them, and one
 * that does loads only its dialect (~0.1 s of CPU saved per process start otherwise).
 */
const require = createRequire(import.meta.url);
type AjvClass = new (opts: object) => Ajv;
/** A CommonJS module's main export (`module.exports.default` when it has one). */
const main = <T>(m: unknown): T => ((m as { default?: unknown }).default ?? m) as T;
/** Each dialect's ajv class, required on first use (literal `require`s: knip and bundlers see them). */
const dialectClass = (dialect: Dialect): AjvClass =>
  main(dialect === '2020-12' ? require('ajv/dist/2020.js') : dialect === '2019-09' ? require('ajv/dist/2019.js') : require('ajv'));

/** A new ajv instance for `dialect` with the common options. */
export function newAjv(dialect: Dialect, o: AjvOptions = {}): Ajv {
  const meta = o.meta ?? true;
  const opts = {
    strict: false,
    allErrors: true,
    logger: false as const,
    validateFormats: o.assertFormats === true,
    verbose: o.verbose === true,
    meta,
    validateSchema: meta,
  };
  const ajv = new (dialectClass(dialect))(opts);
  if ((dialect === 'draft-07' || dialect === 'draft-06') && meta) ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
  if (o.assertFormats === true) main<(a: Ajv) => unknown>(require('ajv-formats'))(ajv);
  return ajv;
}

const metaInstances = new Map<Dialect, Ajv>();

type MetaCheck = ((schema: unknown) => boolean) & { errors?: ErrorObject[] | null };
let generated2020: MetaCheck | null | undefined;

/**
 * 2020-12's meta-schema check as the build generated it (scripts/meta-validators.mjs: ajv's
 * standalone code, the meta instance's options), so checking a schema builds no ajv instance
 * (compiling the meta-schema costs ~80 ms of CPU); null when there is no build (the meta
 * instance answers, the same way).
 */
function generatedCheck2020(): MetaCheck | null {
  if (generated2020 === undefined) {
    try {
      generated2020 = main<MetaCheck>(require(packageFile('dist', 'schema', 'meta-2020-12.cjs')));
    } catch {
      generated2020 = null;
    }
  }
  return generated2020;
}

const META_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Why `schema` is not a valid schema of `dialect` (its meta-schema), or undefined when it is. */
export function metaSchemaProblem(dialect: Dialect, schema: object): string | undefined {
  // the generated check is ajv's own for what ajv would check against this meta-schema; any other $schema keeps ajv's path
  const declared = typeof schema === 'object' && schema !== null ? (schema as { $schema?: unknown }).$schema : null;
  const check = dialect === '2020-12' && (declared === undefined || declared === META_2020_12 || declared === `${META_2020_12}#`) ? generatedCheck2020() : null;
  if (check !== null) return check(schema) ? undefined : (check.errors ?? []).map((e) => `schema${e.instancePath} ${e.message}`).join(', ');
  let ajv = metaInstances.get(dialect);
  if (ajv === undefined) metaInstances.set(dialect, (ajv = newAjv(dialect)));
  if (ajv.validateSchema(schema) === true) return undefined;
  return ajv.errorsText(ajv.errors, { dataVar: 'schema' });
}
