/**
 * RFC 6570 matching for resource templates, loaded on the first read that needs it. uri-template-lite
 * extracts the variables; the match only counts when expanding the template again with them gives the URI
 * itself (percent-escapes compared case-insensitively), so a value can only arrive the way the template
 * encodes it: a raw `/` cannot pass for part of a simple `{var}`, and `%2F` arrives decoded as the `/` it
 * stands for. The matcher needs every variable of an expression such as `{?limit}` to be present, so a
 * template is also tried without them, the variants keeping the most variables first; they are cut from the
 * template's parse by @hyperjump/uri-template.
 */
import { parse as parseTemplate, stringify as stringifyTemplate, type TemplatePart } from "@hyperjump/uri-template";
import UriTemplate from "uri-template-lite";
import { normalizeEscapes } from "./resources.js";

/** At most this many variants per template. */
const MAX_VARIANTS = 64;

export class TemplateMatcher {
  /** How many literal characters the template has: the more, the more specific (tried earlier). */
  readonly specificity: number;
  private readonly variants: UriTemplate[];

  constructor(template: string) {
    const parts = parseTemplate(template);
    this.specificity = parts.reduce((n, part) => n + ("value" in part ? part.value.length : 0), 0);
    this.variants = variantsOf(template, parts).map((variant) => new UriTemplate(variant));
  }

  /** The variables `uri` expands from, or `undefined` when the template cannot produce `uri`. */
  match(uri: string): Record<string, unknown> | undefined {
    const target = normalizeEscapes(uri);
    for (const variant of this.variants) {
      const found = variant.match(uri);
      if (found && normalizeEscapes(variant.expand(found)) === target) return { ...found };
    }
    return undefined;
  }
}

/**
 * The template, then the templates with some variables of its optional expressions left out (any expression
 * but a lone simple `{var}` or `{+var}`, whose empty value the matcher handles), most variables kept first.
 */
function variantsOf(template: string, parts: TemplatePart[]): string[] {
  let variants: TemplatePart[][] = [[]];
  for (const part of parts) {
    if (!("variables" in part)) {
      variants = variants.map((variant) => [...variant, part]);
      continue;
    }
    const optional = (part.type !== "" && part.type !== "+") || part.variables.length > 1;
    const subsets = optional ? subsetsOf(part.variables) : [part.variables];
    const next: TemplatePart[][] = [];
    for (const variant of variants) {
      for (const subset of subsets) {
        if (next.length < MAX_VARIANTS) next.push(subset.length === 0 ? variant : [...variant, { ...part, variables: subset }]);
      }
    }
    variants = next;
  }
  const kept = (variant: TemplatePart[]): number => variant.reduce((n, part) => n + ("variables" in part ? part.variables.length : 0), 0);
  const ordered = variants
    .map((variant, order) => ({ text: stringifyTemplate(variant), kept: kept(variant), order }))
    .sort((a, b) => b.kept - a.kept || a.order - b.order)
    .map((variant) => variant.text);
  return [...new Set([template, ...ordered])];
}

/** Every subset of `items`, order kept, largest first. */
function subsetsOf<T>(items: readonly T[]): T[][] {
  const subsets: T[][] = [];
  for (let mask = 2 ** items.length - 1; mask >= 0 && subsets.length < MAX_VARIANTS; mask--) {
    subsets.push(items.filter((_, i) => (mask & (1 << i)) !== 0));
  }
  return subsets.sort((a, b) => b.length - a.length);
}
