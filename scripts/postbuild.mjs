// Makes the CLI entry executable after tsc (tsc does not keep modes).
import fs from 'node:fs';
const entry = new URL('../dist/cli/main.js', import.meta.url);
if (fs.existsSync(entry)) fs.chmodSync(entry, 0o755);
