/**
 * `mcpgen lint`: checks what a server declares against what clients and model providers accept.
 * In: a `Listing` (schemas folder or saved tools/list) and profile names. Out: findings, sorted, each
 * `file#/pointer: message [rule-id]`, errors apart from warnings.
 */
import type { Listing } from "./input.js";
import { PROFILES, RULES, type Profile } from "./rules.js";

export { readListing, InputError, type Listing } from "./input.js";
export { PROFILES, RULES, type Profile, type Rule } from "./rules.js";

export interface Finding {
  file: string;
  pointer: string;
  message: string;
  rule: string;
  severity: "error" | "warning";
}

export function isProfile(name: string): name is Profile {
  return (PROFILES as readonly string[]).includes(name);
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Runs every rule of the given profiles once; findings sorted by file, pointer, rule, duplicates removed. */
export function lint(listing: Listing, profiles: readonly Profile[]): Finding[] {
  const rules = RULES.filter((r) => r.profiles.some((p) => profiles.includes(p)));
  const seen = new Set<string>();
  return rules
    .flatMap((rule) =>
      rule.check(listing).map(({ item, pointer, message }) => ({ file: item.file, pointer: item.at + pointer, message, rule: rule.id, severity: rule.severity })),
    )
    .sort((a, b) => compare(a.file, b.file) || compare(a.pointer, b.pointer) || compare(a.rule, b.rule) || compare(a.message, b.message))
    .filter((f) => {
      const key = formatFinding(f);
      return seen.has(key) ? false : (seen.add(key), true);
    });
}

export function formatFinding(f: Finding): string {
  return `${f.file}#${encodeURI(f.pointer).replace(/#/g, "%23")}: ${f.severity === "warning" ? "warning: " : ""}${f.message} [${f.rule}]`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/** The last line: what was checked against what, and how many problems. */
export function summaryLine(listing: Listing, profiles: readonly Profile[], findings: readonly Finding[]): string {
  const errors = findings.filter((f) => f.severity === "error").length;
  const warnings = findings.length - errors;
  return `mcpgen lint: ${count(listing.tools.length, "tool")} against ${profiles.join(", ")}: ${count(errors, "error")}, ${count(warnings, "warning")}`;
}
