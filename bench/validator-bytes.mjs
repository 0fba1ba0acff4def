/**
 * `node bench/validator-bytes.mjs`: the bytes of generated validator modules (`validators/**\/*.js`) for the
 * example (`schemas/`) and the 1,000-tool reference fixture of bench/build.mjs (`writeFixture(dir, 1000, 1,
 * "reference")`), each built once without cache in a temp folder. Expects a compiled dist/ (`npm run build`).
 *
 *   node bench/validator-bytes.mjs [--json]
 */
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "mcpgen";
import { writeFixture } from "./lib/fixtures.mjs";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const root = mkdtempSync(path.join(os.tmpdir(), "mcpgen-validator-bytes-"));

function measure(dir) {
  const started = performance.now();
  return build({ cwd: dir, cache: false }).then(() => {
    const buildMs = Math.round(performance.now() - started);
    const folder = path.join(dir, "generated", "validators");
    const files = readdirSync(folder, { recursive: true }).filter((f) => f.endsWith(".js"));
    const shared = files.filter((f) => f.startsWith(`defs${path.sep}`));
    const size = (list) => list.reduce((s, f) => s + statSync(path.join(folder, f)).size, 0);
    return { modules: files.length, bytes: size(files), sharedModules: shared.length, sharedBytes: size(shared), buildMs };
  });
}

try {
  const example = path.join(root, "example");
  cpSync(path.join(REPO, "schemas"), path.join(example, "schemas"), { recursive: true });
  const fixture = path.join(root, "fixture");
  writeFixture(fixture, 1000, 1, "reference");
  const results = { example: await measure(example), fixture1000: await measure(fixture) };
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(results, null, 2) + "\n");
  else
    for (const [name, r] of Object.entries(results))
      process.stdout.write(`${name}: ${r.bytes.toLocaleString("en")} B in ${r.modules} modules (shared: ${r.sharedBytes.toLocaleString("en")} B in ${r.sharedModules}), built in ${r.buildMs} ms\n`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
