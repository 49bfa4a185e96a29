// Types for the check fixtures' core (core.mjs), for the TypeScript tests.
export declare const SUPPORTED: string[];
export declare const LATEST: string;
/** Knob name → the id of the check it is meant to break. */
export declare const BUGS: Record<string, string>;
export declare const PROFILES: string[];
export interface FixtureOut {
  send(message: unknown): void;
  end(): void;
}
export declare function createSession(
  bugs: Set<string>,
  aside: (message: unknown) => void,
): { handle(message: unknown, out: FixtureOut): Promise<void> };
export declare function bugsFrom(argv: string[], env: Record<string, string | undefined>): Set<string>;
