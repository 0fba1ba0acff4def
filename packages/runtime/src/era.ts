/**
 * Protocol versions and the two eras they belong to, in one place: which versions this runtime speaks,
 * which era a version is in, and whether a version has a given feature. Versions are compared by their
 * position in one ordered list, never as strings.
 */
import { LastLookup } from "./cache.js";

/** The two protocol eras: `legacy` has the `initialize` handshake, `modern` is stateless. */
export type Era = "legacy" | "modern";

/** Every version this runtime speaks, oldest first, with its era: the one order versions are compared by. */
const VERSIONS = [
  { version: "2025-03-26", era: "legacy" },
  { version: "2025-06-18", era: "legacy" },
  { version: "2025-11-25", era: "legacy" },
  { version: "2026-07-28", era: "modern" },
] as const satisfies readonly { version: string; era: Era }[];

export type ProtocolVersion = (typeof VERSIONS)[number]["version"];

const RANK: ReadonlyMap<string, { readonly rank: number; readonly era: Era }> = new Map(VERSIONS.map(({ version, era }, rank) => [version, { rank, era }]));
/** `RANK` for `eraOf`, which is asked of the same header or `_meta` value request after request. */
const ERA_LOOKUP = new LastLookup((version: string) => RANK.get(version));

/** Stateless revisions: version, client info and capabilities travel in every request's `_meta`. */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = VERSIONS.filter((v) => v.era === "modern").map((v) => v.version).reverse();
/** Handshake revisions, newest first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = VERSIONS.filter((v) => v.era === "legacy").map((v) => v.version).reverse();
/** Everything this runtime speaks, newest first (what `server/discover` and -32022 errors list). */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [...MODERN_PROTOCOL_VERSIONS, ...LEGACY_PROTOCOL_VERSIONS];
/** The answer to an `initialize` asking for a version we do not speak. */
export const LATEST_LEGACY_PROTOCOL_VERSION: ProtocolVersion = "2025-11-25";

/** The era of `version`, or `undefined` when this runtime does not speak it. */
export function eraOf(version: unknown): Era | undefined {
  return typeof version === "string" ? ERA_LOOKUP.get(version)?.era : undefined;
}

export function isModern(version: unknown): boolean {
  return eraOf(version) === "modern";
}

export function isLegacy(version: unknown): boolean {
  return eraOf(version) === "legacy";
}

/** Whether `version` (one this runtime speaks) is `since` or later; an unknown version is not. */
export function atLeast(version: string | undefined, since: ProtocolVersion): boolean {
  const rank = version === undefined ? undefined : RANK.get(version)?.rank;
  return rank !== undefined && rank >= (RANK.get(since) as { rank: number }).rank;
}

/** 2025-11-25 and later: an SSE stream starts with a priming event (an id and `retry`, no data) to resume from. */
export function primesStreams(version: string | undefined): boolean {
  return atLeast(version, "2025-11-25");
}
