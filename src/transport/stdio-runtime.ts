/**
 * What the stdio transport needs from `start()` on (spawning, the child's environment, the exit
 * hooks, the kill ladder, the command-not-found hint, the stderr ring): stdio.ts imports this
 * module on its first start, so that `import('mcpwire')` does not load `node:child_process` and
 * these files for a program that never starts a server (docs/performance.md "Module load").
 */
export { spawn } from 'node:child_process';
export { childEnv } from './env.js';
export { registerExitCloser } from './exit-hooks.js';
export { killsGroupAfterExit, killStep, shutdownLadder, stepSignal } from './spawn/kill.js';
export { notFoundHint } from './spawn/not-found.js';
export { prepareSandbox } from './spawn/sandbox-launch.js';
export { localSpawnPlan, runKillStep } from './spawn/system.js';
export { StderrRing } from './stderr-ring.js';
