/**
 * RFC 6570 matching for resource templates, loaded on the first read that needs one.
 *
 * A template becomes an RE2 expression (re2js): literals quoted, each expression's variables a capture of
 * the characters that operator can produce, the variables of an optional expression (`{?limit}`, `{/a,b}`)
 * each optional. RE2 runs in time linear in the URI and builds no code (no `Function`, no `eval`), unlike a
 * backtracking `RegExp`, where a crafted URI can take seconds. The expression only proposes values: the
 * match counts when expanding the template again with them gives the URI itself (percent-escapes compared
 * case-insensitively), so a value can only arrive the way the template encodes it: a raw `/` cannot pass for
 * part of a simple `{var}`, and `%2F` arrives decoded as the `/` it stands for.
 *
 * Templates were checked by the compiler (RFC 6570 syntax, no exploded variables), so the parser here is
 * the small one that syntax needs; expansion uses web-standard functions only.
 */
import { RE2JS } from "re2js";
import { normalizeEscapes } from "./protocol.js";

interface Operator {
  /** Printed before the first defined variable. */
  readonly first: string;
  /** Printed between defined variables. */
  readonly separator: string;
  /** `name=value` (`;name` for an empty value with `;`). */
  readonly named: boolean;
  /** Reserved characters pass unencoded (`+` and `#`). */
  readonly reserved: boolean;
}

const OPERATORS: Record<string, Operator> = {
  "": { first: "", separator: ",", named: false, reserved: false },
  "+": { first: "", separator: ",", named: false, reserved: true },
  "#": { first: "#", separator: ",", named: false, reserved: true },
  ".": { first: ".", separator: ".", named: false, reserved: false },
  "/": { first: "/", separator: "/", named: false, reserved: false },
  ";": { first: ";", separator: ";", named: true, reserved: false },
  "?": { first: "?", separator: "&", named: true, reserved: false },
  "&": { first: "&", separator: "&", named: true, reserved: false },
};

interface Variable {
  readonly name: string;
  /** The prefix modifier `{name:3}`. */
  readonly maxLength: number | undefined;
}

type Part = { readonly literal: string } | { readonly operator: Operator; readonly variables: readonly Variable[] };

/** What a value may hold once encoded: unreserved characters and escapes; with `+`/`#` also reserved ones. */
const UNRESERVED = "[A-Za-z0-9\\-._~%]*";
const RESERVED = "[A-Za-z0-9\\-._~%:/?#\\[\\]@!$&'()*+,;=]*";

export class TemplateMatcher {
  /** How many literal characters the template has: the more, the more specific (tried earlier). */
  readonly specificity: number;
  private readonly parts: readonly Part[];
  private readonly names: readonly string[];
  private readonly expression: RE2JS;

  constructor(template: string) {
    this.parts = parse(template);
    this.specificity = this.parts.reduce((n, part) => n + ("literal" in part ? part.literal.length : 0), 0);
    const names: string[] = [];
    let source = "";
    for (const part of this.parts) {
      if ("literal" in part) {
        source += RE2JS.quote(part.literal);
        continue;
      }
      const { operator, variables } = part;
      const value = `(${operator.reserved ? RESERVED : UNRESERVED})`;
      // A lone `{var}` or `{+var}` is always there (perhaps empty); any other variable may be left out.
      if (variables.length === 1 && operator.first === "") {
        names.push(variables[0]!.name);
        source += `()${value}`;
        continue;
      }
      const leads = operator.first === "" ? `${RE2JS.quote(operator.separator)}?` : `[${RE2JS.quote(operator.first + operator.separator)}]`;
      for (const { name } of variables) {
        names.push(name);
        const key = RE2JS.quote(name);
        const named = !operator.named ? value : operator.first === ";" ? `${key}(?:=${value})?` : `${key}=${value}`;
        source += `(?:${leads}()${named})?`;
      }
    }
    this.names = names;
    this.expression = RE2JS.compile(`^${source}$`);
  }

  /** The variables `uri` expands from, or `undefined` when the template cannot produce `uri`. */
  match(uri: string): Record<string, string> | undefined {
    const target = normalizeEscapes(uri);
    // The DFA answers yes or no fast; only a URI that fits pays for the captures.
    if (!this.expression.testExact(target)) return undefined;
    const found = this.expression.matcher(target);
    if (!found.matches()) return undefined;
    // Variable names are the author's ("__proto__", "constructor"): a map without a prototype keeps them keys.
    const values = Object.create(null) as Record<string, string>;
    try {
      this.names.forEach((name, i) => {
        if (found.group(2 * i + 1) != null && !Object.hasOwn(values, name)) values[name] = decodeURIComponent(found.group(2 * i + 2) ?? "");
      });
    } catch {
      return undefined; // a malformed escape
    }
    return expand(this.parts, values) === target ? values : undefined;
  }
}

/** RFC 6570 parse of a template the compiler accepted. */
function parse(template: string): Part[] {
  const parts: Part[] = [];
  for (const piece of template.split(/(\{[^}]*\})/)) {
    if (piece === "") continue;
    if (!piece.startsWith("{")) {
      parts.push({ literal: encode(piece, true) });
      continue;
    }
    const body = piece.slice(1, -1);
    const operator = "+#./;?&".includes(body[0]!) ? body[0]! : "";
    const variables = body
      .slice(operator.length)
      .split(",")
      .map((spec) => {
        const [name, length] = spec.replace(/\*$/, "").split(":");
        return { name: name!, maxLength: length === undefined ? undefined : Number(length) };
      });
    parts.push({ operator: OPERATORS[operator]!, variables });
  }
  return parts;
}

/** RFC 6570 expansion of string values; missing ones are undefined. */
export function expand(parts: readonly Part[], values: Readonly<Record<string, string>>): string {
  let uri = "";
  for (const part of parts) {
    if ("literal" in part) {
      uri += part.literal;
      continue;
    }
    const { operator } = part;
    const items: string[] = [];
    for (const { name, maxLength } of part.variables) {
      if (!Object.hasOwn(values, name)) continue;
      const raw = values[name]!;
      const value = encode(maxLength === undefined ? raw : [...raw].slice(0, maxLength).join(""), operator.reserved);
      items.push(!operator.named ? value : value === "" && operator.first === ";" ? name : `${name}=${value}`);
    }
    if (items.length > 0) uri += operator.first + items.join(operator.separator);
  }
  return uri;
}

/**
 * Percent-encodes (upper-case hex, UTF-8) every character but the unreserved ones, and with `reserved` also
 * leaves reserved characters and existing escapes alone.
 */
function encode(value: string, reserved: boolean): string {
  const pattern = reserved ? /%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/gu : /[^A-Za-z0-9\-._~]/gu;
  return normalizeEscapes(value.replace(pattern, (char) => encodeURIComponent(char).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)));
}
