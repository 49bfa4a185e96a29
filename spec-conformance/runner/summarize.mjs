// Judges a conformance results folder against the expected-failures baseline, the way the
// suite's own --expected-failures does: one line per scenario, then totals.
//   node summarize.mjs <results-dir> <expected-failures.yml> [summary-file]
// A scenario passes when none of its checks is FAILURE or WARNING and the client exited 0
// (the suite treats a warning as a failure too). Exit 1 on a failure not in the baseline, on a
// baseline entry that now passes (stale), or when there are no results at all.
// The summary file (for .ci/run) gets "<passed> <failed>": failed = unexpected failures +
// stale entries; baselined failures are reported, not counted.
import fs from 'node:fs';
import path from 'node:path';

const [dir, baselineFile, summaryFile] = process.argv.slice(2);
const baseline = new Set();
if (fs.existsSync(baselineFile)) {
  let inClient = false;
  for (const line of fs.readFileSync(baselineFile, 'utf8').split('\n')) {
    if (/^\S/.test(line)) inClient = /^client\s*:/.test(line);
    const m = inClient && line.match(/^\s+-\s*['"]?([^'"#\s]+)/);
    if (m) baseline.add(m[1]);
  }
}

/** scenario name → checks, from <dir>/<scenario>-<timestamp>/checks.json (auth/… are nested). */
const results = new Map();
function walk(d, prefix) {
  for (const entry of fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }) : []) {
    if (!entry.isDirectory()) continue;
    const full = path.join(d, entry.name);
    const file = path.join(full, 'checks.json');
    if (fs.existsSync(file)) {
      const scenario = prefix + entry.name.replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, '');
      results.set(scenario, JSON.parse(fs.readFileSync(file, 'utf8')));
    } else walk(full, `${prefix}${entry.name}/`);
  }
}
walk(dir, '');
const exitCodes = new Map();
const exitFile = path.join(dir, 'exit-codes.txt');
if (fs.existsSync(exitFile)) {
  for (const line of fs.readFileSync(exitFile, 'utf8').split('\n')) {
    const [scenario, code] = line.trim().split(/\s+/);
    if (scenario) exitCodes.set(scenario, Number(code));
  }
}

let passed = 0;
let unexpected = 0;
let stale = 0;
let xfail = 0;
for (const [scenario, checks] of [...results].sort(([a], [b]) => a.localeCompare(b))) {
  const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
  const ok = checks.filter((c) => c.status === 'SUCCESS').length;
  const exit = exitCodes.get(scenario) ?? 0;
  const pass = bad.length === 0 && ok > 0 && exit === 0;
  let mark;
  if (pass && baseline.has(scenario)) (mark = 'STALE'), stale++;
  else if (pass) (mark = 'PASS'), passed++;
  else if (baseline.has(scenario)) (mark = 'XFAIL'), xfail++;
  else (mark = 'FAIL'), unexpected++;
  const why = bad.map((c) => `${c.id}=${c.status}`).concat(exit !== 0 ? [`runner exit ${exit}`] : []);
  console.log(`${mark.padEnd(5)} ${scenario}: ${ok} SUCCESS${why.length ? `; ${why.join(', ')}` : ''}`);
}
const notRun = [...baseline].filter((s) => !results.has(s));
if (notRun.length > 0) console.log(`NOTE  ${notRun.length} baseline entries did not run (filtered out?)`);
console.log(
  `conformance: ${passed} scenarios passed, ${unexpected} unexpected failures, ${xfail} expected failures (baseline), ${stale} stale baseline entries`,
);
if (summaryFile) fs.writeFileSync(summaryFile, `${passed} ${unexpected + stale}\n`);
process.exit(results.size === 0 || unexpected > 0 || stale > 0 ? 1 : 0);
