/**
 * Turns the errors of a precompiled validator into one line a model can act on:
 * `/query: must be string; /limit: must be <= 100; /extra: unknown property (not allowed)`.
 */
import { clip } from "./protocol.js";
import type { ValidationError } from "./registry.js";

/** At most this many problems are listed; the rest are counted. */
const MAX_LISTED = 8;

/**
 * Validators collect every error, and a client controls how many there are (12,000 wrong items, 12,000
 * unknown keys): the work here stays linear in them — a set de-duplicates, and only the listed problems are
 * described; the rest are counted (duplicates among them included). An `if` error only says that its `then`
 * or `else` failed, whose own errors come before it: it is left out (tagged unions are compiled that way).
 */
export function describeValidationErrors(errors: readonly ValidationError[] | null | undefined): string {
  if (!errors || errors.length === 0) return "/: does not match the schema";
  if (errors.length > 1 && errors.some((error) => error.keyword === "if")) {
    const own = errors.filter((error) => error.keyword !== "if");
    if (own.length > 0) errors = own;
  }
  const lines = new Set<string>();
  let index = 0;
  for (; index < errors.length && lines.size < MAX_LISTED; index++) lines.add(describe(errors[index] as ValidationError));
  const shown = [...lines].join("; ");
  const rest = errors.length - index;
  return rest > 0 ? `${shown}; and ${rest} more` : shown;
}

function describe(error: ValidationError): string {
  const path = clip(error.instancePath || "");
  const params = error.params ?? {};
  switch (error.keyword) {
    case "required":
      return `${child(path, params.missingProperty)}: is required`;
    case "additionalProperties":
      return `${child(path, params.additionalProperty)}: unknown property (not allowed)`;
    case "unevaluatedProperties":
      return `${child(path, params.unevaluatedProperty)}: unknown property (not allowed)`;
    case "enum":
      return `${path || "/"}: must be one of ${list(params.allowedValues)}`;
    case "const":
      return `${path || "/"}: must be ${JSON.stringify(params.allowedValue)}`;
    case "type":
      return `${path || "/"}: must be ${Array.isArray(params.type) ? params.type.join(" or ") : String(params.type)}`;
    default:
      // ajv's own message when the validators were built with messages, else one made from params.
      return `${path || "/"}: ${error.message ?? fromParams(error.keyword, params)}`;
  }
}

function fromParams(keyword: string, params: Record<string, unknown>): string {
  switch (keyword) {
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${String(params.comparison)} ${String(params.limit)}`;
    case "minLength":
      return `must NOT have fewer than ${String(params.limit)} characters`;
    case "maxLength":
      return `must NOT have more than ${String(params.limit)} characters`;
    case "minItems":
      return `must NOT have fewer than ${String(params.limit)} items`;
    case "maxItems":
      return `must NOT have more than ${String(params.limit)} items`;
    case "pattern":
      return `must match pattern ${JSON.stringify(params.pattern)}`;
    case "format":
      return `must match format ${JSON.stringify(params.format)}`;
    default:
      return `fails "${keyword}"`;
  }
}

/** The JSON pointer of property `name` under `path` (RFC 6901 escaping). */
function child(path: string, name: unknown): string {
  if (typeof name !== "string") return path || "/";
  return `${path}/${clip(name).replace(/~/g, "~0").replace(/\//g, "~1")}`;
}

function list(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => JSON.stringify(v)).join(", ") : JSON.stringify(values);
}
