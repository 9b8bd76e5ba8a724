// Applies every py_*.json vector (made by pycrdt) in yjs and checks the resulting items.
// Run: NODE_PATH=/tmp/yjsgen/node_modules node check.mjs  (exit status 1 on any mismatch).
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkVector } from "./interop.mjs";

const require = createRequire(import.meta.url);
const Y = require("yjs");
const here = dirname(fileURLToPath(import.meta.url));
const pattern = process.argv[2] ? new RegExp(process.argv[2]) : /^py_.*\.json$/;
const files = readdirSync(here).filter((name) => pattern.test(name)).sort();
if (files.length === 0) throw new Error(`no vectors matching ${pattern} in ${here}`);

let failed = 0;
for (const file of files) {
  const mismatches = checkVector(Y, JSON.parse(readFileSync(join(here, file), "utf8")));
  for (const mismatch of mismatches) console.error(`${file}: ${mismatch}`);
  failed += mismatches.length > 0 ? 1 : 0;
}
console.log(`${files.length - failed}/${files.length} vectors ok`);
process.exit(failed > 0 ? 1 : 0);
