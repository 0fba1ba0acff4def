/**
 * Diagnostics: every problem in the input, as `file#/json/pointer: message`. Errors stop the build;
 * warnings (`file#/pointer: warning: message`) are reported and the build goes on.
 */
import type { ErrorObject } from "ajv";

export interface Diagnostic {
  /** The file, relative to the working directory, with forward slashes. */
  file: string;
  /** A JSON pointer into the file ("" for the whole file). */
  pointer: string;
  message: string;
  /** Absent for an error. */
  severity?: "warning";
}

export const isWarning = (d: Diagnostic): boolean => d.severity === "warning";

/** An unpaired UTF-16 surrogate: not Unicode text (`encodeURI` throws on it). */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function formatDiagnostic(d: Diagnostic): string {
  const pointer = d.pointer.replace(new RegExp(LONE_SURROGATE, "g"), "\uFFFD");
  return `${d.file}#${encodeURI(pointer).replace(/#/g, "%23")}: ${isWarning(d) ? "warning: " : ""}${d.message}`;
}

/** Sorted by file, then pointer, then message; duplicates removed. */
export function sortDiagnostics(list: readonly Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return [...list]
    .sort((a, b) => compare(a.file, b.file) || compare(a.pointer, b.pointer) || compare(a.message, b.message))
    .filter((d) => {
      const key = formatDiagnostic(d);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/** Thrown by `build()` when the input has problems; carries all of them (and the warnings), sorted. */
export class DiagnosticError extends Error {
  readonly diagnostics: Diagnostic[];
  /** How many of `diagnostics` are errors (the others are warnings). */
  readonly errors: number;
  constructor(diagnostics: readonly Diagnostic[]) {
    const sorted = sortDiagnostics(diagnostics);
    super(sorted.map(formatDiagnostic).join("\n"));
    this.name = "DiagnosticError";
    this.diagnostics = sorted;
    this.errors = sorted.filter((d) => !isWarning(d)).length;
  }
}

/** Code-unit order, independent of locale, so output is the same on every machine. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function pointerEscape(segment: string | number): string {
  if (typeof segment === "number") return String(segment);
  return segment.includes("~") || segment.includes("/") ? segment.replace(/~/g, "~0").replace(/\//g, "~1") : segment;
}

export function pointerJoin(base: string, ...segments: (string | number)[]): string {
  let pointer = base;
  for (const segment of segments) pointer += "/" + pointerEscape(segment);
  return pointer;
}

export function pointerParse(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The value at `pointer` in `root`, or undefined. */
export function pointerGet(root: unknown, pointer: string): unknown {
  let node = root;
  for (const segment of pointerParse(pointer)) {
    if (node === null || typeof node !== "object" || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

/**
 * ajv errors as diagnostics, each at the exact place in `file`. Where one place has several errors from
 * the branches of an `anyOf` (a meta-schema's `type` is a name or a list of names), the most specific wins.
 */
export function ajvDiagnostics(errors: readonly ErrorObject[] | null | undefined, file: string, base: string): Diagnostic[] {
  const list = (errors ?? []).filter((e) => e.keyword !== "if" && e.keyword !== "anyOf");
  const specific = new Set(list.filter((e) => e.keyword !== "type").map((e) => e.instancePath));
  return list
    .filter((e) => e.keyword !== "type" || !specific.has(e.instancePath))
    .map((e) => {
      const pointer = base + e.instancePath;
      const params = e.params as Record<string, unknown>;
      if (e.keyword === "additionalProperties")
        return { file, pointer: pointerJoin(pointer, String(params.additionalProperty)), message: "unknown property" };
      if (e.keyword === "required")
        return { file, pointer, message: `missing required property "${String(params.missingProperty)}"` };
      if (e.keyword === "enum")
        return { file, pointer, message: `must be one of ${JSON.stringify(params.allowedValues)}` };
      return { file, pointer, message: e.message ?? e.keyword };
    });
}
