#!/usr/bin/env node
// The slowest test files of a full run, from vitest's JSON report (.ci/run writes one:
// `--reporter=json --outputFile.json=…`), as test/support/slow-files.ts lists them; and how long
// one worker ran alone at the end of that run.
//
//   node scripts/slow-files.mjs <vitest.json> [workers=3] [seconds=10]
//
// A file's time is its worker's: from the end of the file that worker ran before to its own end,
// so the file's import and collection count (the report's start time is after them). Workers are
// not in the report: a file goes to the worker that came free last before it started.
import { readFileSync } from 'node:fs';

const [file, workersArg = '3', secondsArg = '10'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node scripts/slow-files.mjs <vitest.json> [workers=3] [seconds=10]');
  process.exit(2);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const results = [...report.testResults].sort((a, b) => a.startTime - b.startTime);
const t0 = results[0].startTime;
const end = Math.max(...results.map((r) => r.endTime));
const free = Array.from({ length: Number(workersArg) }, () => t0);
const took = new Map();
// The project root: the folder every test file is under (the report's paths are absolute).
let root = results[0].name.slice(0, results[0].name.lastIndexOf('/') + 1);
while (!results.every((r) => r.name.startsWith(root))) root = root.slice(0, root.lastIndexOf('/', root.length - 2) + 1);
for (const r of results) {
  const ready = free.map((t, i) => [t, i]).filter(([t]) => t <= r.startTime + 1);
  const [, w] = ready.length ? ready.reduce((a, b) => (b[0] > a[0] ? b : a)) : free.map((t, i) => [t, i]).reduce((a, b) => (b[0] < a[0] ? b : a));
  took.set(r.name.slice(root.length), (r.endTime - free[w]) / 1000);
  free[w] = r.endTime;
}
// The end of the run with fewer files running than workers.
let running = 0;
let lastFull = t0;
for (const [t, d] of results.flatMap((r) => [[r.startTime, 1], [r.endTime, -1]]).sort((a, b) => a[0] - b[0] || a[1] - b[1])) {
  running += d;
  if (running >= free.length) lastFull = t;
}
const slow = [...took].filter(([, s]) => s >= Number(secondsArg)).sort((a, b) => b[1] - a[1]);
console.log(`// ${results.length} files, ${((end - t0) / 1000).toFixed(0)} s; the last ${((end - lastFull) / 1000).toFixed(1)} s with fewer than ${free.length} files running`);
for (const [name, s] of slow) console.log(`  '${name}', // ${Math.round(s)} s`);
