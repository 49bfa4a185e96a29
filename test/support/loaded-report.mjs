// A preload (`node --import`, through NODE_OPTIONS): at exit, writes to the file
// $MCPWIRE_LOADED_REPORT the CommonJS modules the process loaded (npm packages' files: an ES
// module importing CommonJS goes through the same cache).
import fs from 'node:fs';
import { createRequire } from 'node:module';

const cache = createRequire(import.meta.url).cache;
process.on('exit', () => fs.writeFileSync(process.env.MCPWIRE_LOADED_REPORT, JSON.stringify(Object.keys(cache))));
