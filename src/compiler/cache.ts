/**
 * A content-addressed cache for the expensive emitters (types, validators): same input, same output,
 * so a rebuild after changing one tool only recompiles that tool.
 *
 * On disk it is a pack file, `node_modules/.cache/mcpgen/pack`: a JSON header line listing every entry's
 * key and byte length, then the entries' UTF-8 bytes one after the other. One file, not one per entry:
 * creating thousands of small files was most of a first build's time on some file systems. A build reads
 * the pack (and the delta packs beside it) once and decodes only the entries it asks for. If it made
 * anything, it writes the new entries as a delta pack, or, once the unused and new entries are a large
 * part of what it used, a new pack holding exactly the entries it used: what no build uses any more is
 * dropped then (see `PackCache`). Every file is written beside and renamed into place.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
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
 * drives, and the code of the modules that configure them (and of the bundle made from them). Part of every
 * cache key, so that an upgrade (or a local change to mcpgen itself) never serves stale output.
 */
let fingerprint: string | undefined;
export function compilerFingerprint(): string {
  if (fingerprint) return fingerprint;
  const hash = createHash("sha256");
  for (const pkg of ["ajv", "ajv-formats", "json-schema-to-typescript"]) {
    hash.update(readFileSync(require.resolve(`${pkg}/package.json`)));
  }
  const fromSource = path.extname(fileURLToPath(import.meta.url)) === ".ts"; // .js when built
  // units.ts too: a type unit's cache key is its shape's digest and names, not the schema they make.
  for (const module of ["./ajv.js", "./emit/types.js", "./emit/jstt.cjs", "./emit/validators.js", "./emit/shared.js", "./defaults.js", "./units.js", "./tagged-unions.js"]) {
    hash.update(readFileSync(new URL(fromSource ? module.replace(/js$/, "ts") : module, import.meta.url)));
  }
  // The runtime's modules that decide what is emitted: which patterns run on V8's RegExp (`backtrackSafe`), and
  // which formats are the runtime's own checks. The compiler's bundle leaves the runtime out, so its digest
  // below does not cover them.
  for (const module of ["@mcpgen/runtime/regexp", "@mcpgen/runtime/validators"]) hash.update(readFileSync(require.resolve(module)));
  hash.update(readFileSync(new URL("../../package.json", import.meta.url)));
  // The bundle the CLI and the `mcpgen` entry run (dist/bundle/), when there is one, by the digest of its files
  // that scripts/bundle.mjs wrote with them (hashing them here cost ~3 ms a build): it is made from the modules
  // above, but one not made again after them would be other code than they hold.
  const bundle = readIfExists(new URL("../bundle/code.sha256", import.meta.url));
  if (bundle) hash.update(bundle);
  return (fingerprint = hash.digest("hex"));
}

/** The file's bytes, or undefined when there is no such file. */
export function readIfExists(file: URL): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The SHA-256 of `value`'s JSON, in hex: the digest of what something is made from. */
export function jsonDigest(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
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

/** A pack, and the packs of later entries beside it (`pack-<id>`), written whole and renamed into place. */
const PACK = "pack";
const DELTA = /^pack-[0-9a-z-]+$/;
/** At most this many delta packs beside the pack; the next save writes one pack of what it used. */
const MAX_DELTAS = 16;

/**
 * The cache in a folder; `save()` writes what this build added, if anything. Most builds add a few entries to
 * a pack of megabytes (after a one-tool edit of 1,000 tools: ~40 KB to ~11 MB): those go into a delta pack of
 * their own, so that the pack is not written again. When the entries a build left unused (the garbage) and
 * those it added come to more than an eighth of what it used, or there are `MAX_DELTAS` deltas, it writes
 * one pack of exactly the entries it used instead, and removes the deltas it read.
 */
export class PackCache implements Cache {
  private readonly stored = new Map<string, { bytes: Buffer; start: number; end: number }>();
  /** Entries this build made. */
  private readonly added = new Map<string, string>();
  /** Stored entries this build read or kept: copied byte for byte into the next pack. */
  private readonly reused = new Set<string>();
  /** The delta packs read, removed when a whole pack replaces them. */
  private readonly deltas: string[] = [];

  constructor(private readonly dir: string) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return; // no cache yet: a cold build, which writes a pack
    }
    const read = (name: string) => {
      try {
        const bytes = readFileSync(path.join(dir, name));
        const newline = bytes.indexOf(10);
        const header = JSON.parse(bytes.toString("utf8", 0, newline)) as PackHeader;
        if (header.format !== PACK_FORMAT) return false;
        let start = newline + 1;
        const entries: [string, { bytes: Buffer; start: number; end: number }][] = [];
        for (const [key, length] of header.entries) {
          entries.push([key, { bytes, start, end: start + length }]);
          start += length;
        }
        if (start !== bytes.length) return false; // cut short: not used
        for (const [key, at] of entries) this.stored.set(key, at);
        return true;
      } catch {
        return false; // unreadable: not used (the next whole pack replaces it)
      }
    };
    if (names.includes(PACK)) read(PACK);
    for (const name of names.filter((n) => DELTA.test(n)).sort()) {
      read(name);
      this.deltas.push(name);
    }
  }

  get(key: string): string | undefined {
    const value = this.added.get(key);
    if (value !== undefined) return value;
    const at = this.stored.get(key);
    if (!at) return undefined;
    this.reused.add(key);
    return at.bytes.toString("utf8", at.start, at.end);
  }

  set(key: string, value: string): void {
    this.added.set(key, value);
  }

  keep(key: string): void {
    if (this.stored.has(key)) this.reused.add(key);
  }

  /**
   * Writes what this build added: a delta pack, or one pack of the entries it used (see the class); nothing
   * when it added nothing, unless most stored entries went unused.
   */
  save(): void {
    if (!this.added.size && this.reused.size * 2 >= this.stored.size) return;
    const size = (at: { start: number; end: number }) => at.end - at.start;
    let used = 0;
    let garbage = 0;
    for (const [key, at] of this.stored) if (this.reused.has(key)) used += size(at);
    else garbage += size(at);
    const bytes = new Map([...this.added].map(([key, value]) => [key, Buffer.byteLength(value, "utf8")]));
    const fresh = [...this.added.keys()].filter((key) => !this.stored.has(key));
    const added = fresh.reduce((sum, key) => sum + bytes.get(key)!, 0);
    const whole = !this.stored.size || this.deltas.length >= MAX_DELTAS || (garbage + added) * 8 > used;
    const keys = whole ? [...new Set([...this.added.keys(), ...this.reused])].sort() : fresh.sort();
    if (!keys.length) return;
    // Written into one buffer of the pack's size: a buffer per entry, joined after, took about twice as long
    // (3,200 entries of 12 MB: 33–56 against 17–19 ms).
    const values = keys.map((key) => this.added.get(key) ?? this.stored.get(key)!);
    const lengths = values.map((value, i) => (typeof value === "string" ? bytes.get(keys[i]!)! : size(value)));
    const header: PackHeader = { format: PACK_FORMAT, entries: keys.map((key, i) => [key, lengths[i]!]) };
    const headerText = JSON.stringify(header) + "\n";
    const pack = Buffer.allocUnsafe(lengths.reduce((sum, length) => sum + length, Buffer.byteLength(headerText, "utf8")));
    let offset = pack.write(headerText, 0, "utf8");
    for (const value of values) offset += typeof value === "string" ? pack.write(value, offset, "utf8") : value.bytes.copy(pack, offset, value.start, value.end);
    const name = whole ? PACK : `${PACK}-${Date.now().toString(36)}-${process.pid.toString(36)}-${randomBytes(3).toString("hex")}`;
    const temp = path.join(this.dir, `${name}.${process.pid}-${Date.now()}.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileSync(temp, pack);
      renameSync(temp, path.join(this.dir, name));
      // The deltas read are in the new pack now, or were not used (a delta written since stays).
      if (whole) for (const delta of this.deltas) rmSync(path.join(this.dir, delta), { force: true });
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
