/**
 * The values a choice needs from the user, read off a package (runtime and package arguments,
 * environment variables) or a remote (URL variables, headers), and how a given value becomes
 * text of the entry. Each is named by a key the user gives with `--set <KEY>=<VALUE>`: an environment
 * variable's or header's name, a named argument's flag (`--port`), a positional argument's
 * `valueHint`, a variable's name. A fixed `value` from the publisher is not asked for; its
 * `{variables}` are. A secret is never a value of the entry: it becomes the reference `${VAR}`.
 */
import { RegistryError } from './errors.js';
import type { InputSpec } from './types.js';

export type InputPlace = 'environment variable' | 'header' | 'argument' | 'variable';

/** One value a choice asks for. */
export interface NeededInput {
  key: string;
  where: InputPlace;
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: string[];
  repeated?: boolean;
  /** For a secret: the environment variable the user sets (the entry holds `${var}`). */
  envVar?: string;
}

/** What the user gave (`--set`, answers at the prompt), key → values (several for a repeated one). */
export type GivenValues = ReadonlyMap<string, readonly string[]>;

/** The environment variable a secret `key` of server `id` is read from. */
export function secretVarFor(id: string, key: string, where: InputPlace): string {
  if (where === 'environment variable') return key;
  const name = `${id}_${key.replace(/^[^A-Za-z0-9]+/, '')}`.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^[^A-Z]+|_+$/g, '');
  return name || 'MCP_SECRET';
}

/** The inputs of one spec (itself, or the variables of its fixed value). */
export function inputsOf(spec: InputSpec, key: string, where: InputPlace, id: string, repeated = false): NeededInput[] {
  if (spec.value !== undefined) {
    return Object.entries(spec.variables ?? {}).filter(([v]) => spec.value!.includes(`{${v}}`)).flatMap(([v, s]) => inputsOf({ ...s, value: undefined }, v, 'variable', id));
  }
  const secret = spec.isSecret === true;
  return [{
    key,
    where,
    required: spec.isRequired === true,
    secret,
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    ...(spec.default !== undefined ? { default: spec.default } : {}),
    ...(spec.choices?.length ? { choices: spec.choices } : {}),
    ...(repeated ? { repeated: true } : {}),
    ...(secret ? { envVar: secretVarFor(id, key, where) } : {}),
  }];
}

/** What resolving values of a choice collected on the way. */
export class Resolution {
  /** Environment variables the user must set (secrets), with what each is for. */
  readonly secrets = new Map<string, string>();
  /** Non-secret values the user gave (recorded so `mcp update` can give them again). */
  readonly used = new Map<string, string[]>();
  readonly missing: NeededInput[] = [];
  /** Each key's value as it goes in the entry (a secret's `${VAR}`): what a package's URL template reads. */
  readonly resolved = new Map<string, string>();

  constructor(readonly id: string, readonly given: GivenValues, readonly env: NodeJS.ProcessEnv) {}

  /** The values of `spec` (none: leave it out), or records it as missing. */
  values(spec: InputSpec, key: string, where: InputPlace): string[] | undefined {
    const got = this.valuesOf(spec, key, where);
    if (got !== undefined && got.length > 0) this.resolved.set(key, got[0]);
    return got;
  }

  private valuesOf(spec: InputSpec, key: string, where: InputPlace): string[] | undefined {
    if (spec.value !== undefined) {
      const vars = spec.variables ?? {};
      let out = spec.value;
      for (const [v, s] of Object.entries(vars)) {
        if (!out.includes(`{${v}}`)) continue;
        const got = this.values({ ...s, value: undefined }, v, 'variable');
        if (got === undefined) return undefined;
        out = out.split(`{${v}}`).join(got[0]);
      }
      return [out];
    }
    const need = inputsOf(spec, key, where, this.id)[0];
    if (need.secret) return this.secret(need);
    const given = this.given.get(key);
    if (given !== undefined && given.length > 0) {
      if (need.choices && given.some((g) => !need.choices!.includes(g))) {
        throw new RegistryError('missing-value', `${key} must be one of ${need.choices.join(', ')}`);
      }
      this.used.set(key, [...given]);
      return [...given];
    }
    if (need.default !== undefined) return [need.default];
    if (need.required) this.missing.push(need);
    return undefined;
  }

  private secret(need: NeededInput): string[] | undefined {
    if (this.given.has(need.key)) {
      throw new RegistryError('secret-value', `${need.key} is a secret: it is never written to a config file; set ${need.envVar} in the environment where mcpwire runs instead (the entry reads \${${need.envVar}})`);
    }
    const v = need.envVar!;
    // An optional secret is referenced only when it is set here (an unset reference would keep the server from starting).
    if (!need.required && (this.env[v] === undefined || this.env[v] === '')) return undefined;
    this.secrets.set(v, `${need.where} ${need.key}`);
    return [`\${${v}}`];
  }

  /** Throws the missing required values, all of them, when any. */
  finish(): void {
    if (this.missing.length === 0) return;
    const names = this.missing.map((m) => `${m.key} (${m.where}${m.description ? `: ${m.description.slice(0, 80)}` : ''})`);
    throw new RegistryError('missing-value', `required value${names.length > 1 ? 's' : ''} not given: ${names.join('; ')}; give ${names.length > 1 ? 'each' : 'it'} with --set <KEY>=<VALUE> (or run in a terminal to be asked)`);
  }
}
