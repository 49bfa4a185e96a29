/** Types for bugs.mjs: planted bug name → the check it breaks and the transports it applies to. */
export declare const BUGS: Record<string, { check: string; transports?: Array<'stdio' | 'http'> }>;
export declare function bugFrom(argv: string[], env: Record<string, string | undefined>): unknown;
/** The correct modern scenario the bugs are planted in (the default one with the tasks extension). */
export declare const SCENARIO: Record<string, unknown>;
