/** The server.json schema versions the build generates a validator for. */
export const SERVER_JSON_VERSIONS: string[];
/** The generated module's code (minified) for the draft-07 schema in `schemaFile`. */
export function serverJsonValidatorCode(schemaFile: string): string;
/** The generated file's whole text for `version` (`schemaDir`: the package's schema/). */
export function serverJsonValidatorFile(schemaDir: string, version: string): string;
/** Writes dist/schema/server-json-<version>.cjs for each version into `dir`. */
export function writeServerJsonValidators(schemaDir: string, dir: string): void;
