/**
 * A content-addressed cache for the expensive emitters (types, validators): same input, same output,
 * so a rebuild after changing one tool only recompiles that tool.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

export interface Cache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

/**
 * What compiled output depends on besides its input: the versions of mcpgen and of the generators it
 * drives, and the code of the modules that configure them. Part of every cache key, so that an upgrade
 * (or a local change to mcpgen itself) never serves stale output.
 */
let fingerprint: string | undefined;
function compilerFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash("sha256");
  for (const pkg of ["ajv", "ajv-formats", "json-schema-to-typescript"]) {
    hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  }
  const ext = path.extname(fileURLToPath(import.meta.url)); // .js when built, .ts when run from source
  for (const module of ["./ajv", "./emit/types", "./emit/validators"]) {
    hash.update(readFileSync(new URL(module + ext, import.meta.url)));
  }
  hash.update(readFileSync(new URL("../../package.json", import.meta.url)));
  return (fingerprint = hash.digest("hex"));
}

export function cacheKey(...parts: unknown[]): string {
  return createHash("sha256").update(compilerFingerprint()).update(JSON.stringify(parts)).digest("hex");
}

/** A cache in `dir` (created on first write), or a no-op cache when `dir` is undefined. */
export function openCache(dir: string | undefined): Cache {
  if (!dir) return { get: () => undefined, set: () => {} };
  let made = false;
  const file = (key: string) => path.join(dir, key.slice(0, 2), key.slice(2));
  return {
    get(key) {
      try {
        return readFileSync(file(key), "utf8");
      } catch {
        return undefined;
      }
    },
    set(key, value) {
      try {
        const target = file(key);
        if (!made) made = true;
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, value);
      } catch {
        // A cache that cannot be written only costs speed.
      }
    },
  };
}
