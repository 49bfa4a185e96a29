/**
 * Files of the mcpwire package (its package.json, schema/, the scripts it spawns), found from the
 * package's root rather than from the calling module's URL: the build bundles modules into shared
 * chunks (scripts/postbuild.mjs), so where a module's code runs from says nothing of where the
 * package's other files are. The root is found by the package's own name (Node resolves a
 * package's name from inside it to itself), the same from src/ under the tests and from dist/.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

let root: string | undefined;

/** The directory holding mcpwire's package.json. */
export function packageRoot(): string {
  root ??= path.dirname(createRequire(import.meta.url).resolve('mcpwire/package.json'));
  return root;
}

/** A file of the package, by its path from the package's root (`packageFile('dist', 'daemon', 'main.js')`). */
export function packageFile(...parts: string[]): string {
  return path.join(packageRoot(), ...parts);
}

/** The package's version (its package.json's). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(packageFile('package.json'), 'utf8')) as { version: string }).version;
}
