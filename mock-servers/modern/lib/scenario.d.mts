/** Types for scenario.mjs, for TypeScript callers. */
export declare function readModernScenarioFile(ref: string): Record<string, any>;
export declare function resolveModernScenario(raw: Record<string, any> | undefined): Record<string, any>;
export declare function loadModernScenario(argRef?: string): Record<string, any>;
export declare function legacyScenarioOf(scenario: Record<string, any>): Record<string, any>;
