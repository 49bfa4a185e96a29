/**
 * zod, required on first use: loading it (and building a schema) costs ~0.1 s of CPU, which a
 * process that validates no config and no host-tool arguments (`mcpwire --stdio … tools`,
 * `import('mcpwire/host')`) never pays. The schemas of this package are built inside `lazy`
 * builders; their types come from `import type`.
 */
import { createRequire, Module } from 'node:module';
import type { z as Z } from 'zod';

const require = createRequire(import.meta.url);
let loaded: typeof Z | undefined;

/** zod's `z` (its CommonJS build: one copy for every user in this package). */
export function zod(): typeof Z {
  if (loaded === undefined) deferLocales();
  return (loaded ??= (require('zod') as { z: typeof Z }).z);
}

/**
 * zod's CommonJS entry requires all its ~60 translations of error messages (`z.locales`, 65 of
 * the 95 files it loads) and uses only English, which it requires on its own. Until zod is
 * loaded, `z.locales` is put in the module cache as a stand-in that loads the real module on its
 * first use, so the translations load only for a program that asks for one. Nothing changes when
 * zod is already loaded or its files are laid out otherwise (the stand-in is then never read).
 */
function deferLocales(): void {
  let file: string;
  try {
    file = require.resolve('zod/v4/locales');
  } catch {
    return;
  }
  if (require.cache[file] !== undefined || require.cache[require.resolve('zod')] !== undefined) return;
  let real: Record<string | symbol, unknown> | undefined;
  const load = (): Record<string | symbol, unknown> => {
    if (real === undefined) {
      delete require.cache[file];
      real = require(file) as Record<string | symbol, unknown>;
    }
    return real;
  };
  const locales = new Proxy({} as Record<string | symbol, unknown>, {
    get: (_t, key) => (key === '__esModule' ? true : load()[key]),
    has: (_t, key) => key in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
  const stub = new Module(file);
  stub.filename = file;
  stub.loaded = true;
  stub.exports = locales;
  require.cache[file] = stub;
}

/** A value built with zod on its first use, then kept. */
export function lazy<T>(build: (z: typeof Z) => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: build(zod()) }).v;
}

/**
 * An object that is the value `build` returns, built when first touched (a property read, `in`,
 * `instanceof`, its keys): for a public export that must stay a schema object.
 */
export function lazyObject<T extends object>(get: () => T): T {
  return new Proxy({} as T, {
    get: (_t, key) => {
      const real = get();
      const v = Reflect.get(real, key, real) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(real) : v;
    },
    has: (_t, key) => Reflect.has(get(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), key);
      return d === undefined ? undefined : { ...d, configurable: true };
    },
  });
}
