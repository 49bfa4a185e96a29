// Types for suite.mjs (the conformance suite reference names in the check fixture).
/** Knob name → the id of the check it is meant to break. */
export declare const SUITE_BUGS: Record<string, string>;
