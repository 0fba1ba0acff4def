/**
 * A content-addressed cache for the expensive emitters (types, validators): same input, same output,
 * so a rebuild after changing one tool only recompiles that tool.
 *
 * On disk it is one pack file, `node_modules/.cache/mcpgen/pack`: a JSON header line listing every entry's
 * key and byte length, then the entries' UTF-8 bytes one after the other. One file, not one per entry:
 * creating thousands of small files was most of a first build's time on some file systems. A build reads
 * the pack once, decodes only the entries it asks for, and, if it compiled anything, writes a new pack
 * (beside, then renamed over) holding exactly the entries it used: what no build uses any more is dropped.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

export interface Cache {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  /** Counts the entry as used without reading it (its output was kept as it is: see emit). */
  keep(key: string): void;
}

/**
 * What compiled output depends on besides its input: the versions of mcpgen and of the generators it
 * drives, and the code of the modules that configure them. Part of every cache key, so that an upgrade
 * (or a local change to mcpgen itself) never serves stale output.
 */
let fingerprint: string | undefined;
export function compilerFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash("sha256");
  for (const pkg of ["ajv", "ajv-formats", "json-schema-to-typescript"]) {
    hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  }
  const ext = path.extname(fileURLToPath(import.meta.url)); // .js when built, .ts when run from source
  for (const module of ["./ajv", "./emit/types", "./emit/validators", "./emit/shared", "./defaults"]) {
    hash.update(readFileSync(new URL(module + ext, import.meta.url)));
  }
  hash.update(readFileSync(new URL("../../package.json", import.meta.url)));
  return (fingerprint = hash.digest("hex"));
}

export function cacheKey(...parts: unknown[]): string {
  return createHash("sha256").update(compilerFingerprint()).update(JSON.stringify(parts)).digest("hex");
}

/** What compile workers hand back: the entries they made, for the build's cache to keep. */
export class MemoryCache implements Cache {
  readonly entries = new Map<string, string>();
  get(key: string): string | undefined {
    return this.entries.get(key);
  }
  set(key: string, value: string): void {
    this.entries.set(key, value);
  }
  keep(): void {}
}

const PACK_FORMAT = 1;

interface PackHeader {
  format: number;
  /** `[key, byte length]`, in the order of the bytes that follow the header line. */
  entries: [string, number][];
}

/** The cache in a folder; `save()` writes what this build used, if it compiled anything. */
export class PackCache implements Cache {
  private readonly stored = new Map<string, { start: number; end: number }>();
  /** Entries this build made. */
  private readonly added = new Map<string, string>();
  /** Stored entries this build read or kept: copied byte for byte into the next pack. */
  private readonly reused = new Set<string>();
  private bytes: Buffer | undefined;

  constructor(private readonly dir: string) {
    try {
      const bytes = readFileSync(this.file);
      const newline = bytes.indexOf(10);
      const header = JSON.parse(bytes.toString("utf8", 0, newline)) as PackHeader;
      if (header.format !== PACK_FORMAT) return;
      let start = newline + 1;
      for (const [key, length] of header.entries) {
        this.stored.set(key, { start, end: start + length });
        start += length;
      }
      if (start === bytes.length) this.bytes = bytes;
      else this.stored.clear(); // cut short: start afresh
    } catch {
      // No pack yet, or an unreadable one: a cold build, which writes a new pack.
    }
  }

  private get file(): string {
    return path.join(this.dir, "pack");
  }

  get(key: string): string | undefined {
    const value = this.added.get(key);
    if (value !== undefined) return value;
    const at = this.stored.get(key);
    if (!at) return undefined;
    this.reused.add(key);
    return this.bytes!.toString("utf8", at.start, at.end);
  }

  set(key: string, value: string): void {
    this.added.set(key, value);
  }

  keep(key: string): void {
    if (this.stored.has(key)) this.reused.add(key);
  }

  /** Writes a new pack of the entries this build used, when it added any or most stored ones went unused. */
  save(): void {
    if (!this.added.size && this.reused.size * 2 >= this.stored.size) return;
    const keys = [...new Set([...this.added.keys(), ...this.reused])].sort();
    const values = keys.map((key) => {
      const value = this.added.get(key);
      if (value !== undefined) return Buffer.from(value, "utf8");
      const at = this.stored.get(key)!;
      return this.bytes!.subarray(at.start, at.end);
    });
    const header: PackHeader = { format: PACK_FORMAT, entries: keys.map((key, i) => [key, values[i]!.length]) };
    const temp = `${this.file}.${process.pid}-${Date.now()}`;
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(temp, Buffer.concat([Buffer.from(JSON.stringify(header) + "\n", "utf8"), ...values]));
      renameSync(temp, this.file);
    } catch {
      // A cache that cannot be written only costs speed.
      rmSync(temp, { force: true });
    }
  }
}

/** The cache in `dir`, or one that keeps nothing when `dir` is undefined (`--no-cache`). */
export function openCache(dir: string | undefined): Cache & { save(): void } {
  return dir ? new PackCache(dir) : { get: () => undefined, set: () => {}, keep: () => {}, save: () => {} };
}
