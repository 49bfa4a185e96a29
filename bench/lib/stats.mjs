// Medians, spreads, ratios against targets, and plain-text tables.

export function median(xs) {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function fmt(x) {
  if (x == null) return '-';
  if (Math.abs(x) >= 1000) return Math.round(x).toLocaleString('en-US');
  if (Math.abs(x) >= 100) return String(Math.round(x));
  if (Math.abs(x) >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

/** "median [min-max]" over runs (just the value when there is one run). */
export function cell(values) {
  const xs = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (!xs.length) return '-';
  const md = median(xs);
  if (xs.length === 1) return fmt(md);
  return `${fmt(md)} [${fmt(Math.min(...xs))}-${fmt(Math.max(...xs))}]`;
}

export function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ') + ' |';
  return [line(header), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.map(line)].join('\n');
}

/**
 * Ratio num/den for one metric. Both the ratio of medians and the per-run ratios (pairs taken
 * from the same interleaved run, which share the machine's momentary load) are reported.
 */
export function ratio(rowsByLabel, spec) {
  const a = rowsByLabel.get(spec.num) ?? [];
  const b = rowsByLabel.get(spec.den) ?? [];
  // `denKey`: the denominator's metric when it is another one (a gateway's CPU per call against a client's)
  const denKey = spec.denKey ?? spec.key;
  const ma = median(a.map((r) => r[spec.key]));
  const mb = median(b.map((r) => r[denKey]));
  if (ma == null || mb == null || mb === 0) return { ...spec, value: null, perRun: [], pass: null };
  const byRun = new Map(b.map((r) => [r.run, r[denKey]]));
  const perRun = a
    .map((r) => (typeof r[spec.key] === 'number' && byRun.get(r.run) ? r[spec.key] / byRun.get(r.run) : null))
    .filter((x) => x != null);
  // The median of the per-round ratios (two clients measured in the same interleaved round), as
  // docs/performance.md says: a ratio of medians pairs numbers from different rounds, and one
  // noisy round moves it (traced/untraced 1.81, 1.09, 1.08 read 1.13 that way, 1.09 this way).
  // A row whose sides never share a round (the gateway's once-per-bench rows) keeps median/median.
  const value = perRun.length > 0 ? median(perRun) : ma / mb;
  const pass = spec.target == null ? null : spec.op === '>=' ? value >= spec.target : value <= spec.target;
  return { ...spec, value, numMedian: ma, denMedian: mb, perRun, pass };
}
