/**
 * A content-addressed cache for the expensive emitters (types, validators): same input, same output,
 * so a rebuild after changing one tool only recompiles that tool.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

export interface Cache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
}

export function cacheKey(...parts: unknown[]): string {
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
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
