/**
 * Handlebars rendering. Templates (in templates/) are logic-less and never print raw input: every value
 * goes through a helper that makes it safe for the place it lands in.
 *   {{json x}}     a JavaScript literal (JSON with U+2028/U+2029 escaped, a "__proto__" key kept a key)
 *   {{jsonAscii x}} the same with every character beyond ASCII escaped, for a module a server compiles at
 *                   start-up (`asciiOnly`)
 *   {{jsonBlock x}} the same literal spread over lines (two-space indents), for data a reviewer reads
 *   {{jsonParse x}} the same lines as JSON text that JSON.parse reads at run time, for large data a module
 *                   loads at start-up (V8 reads JSON faster than the same object literal)
 *   {{record x}}   an object keyed by user names: a literal copied onto an object without a prototype
 *   {{ident x}}    an identifier, checked against reserved words
 *   {{comment x}}  a JSDoc block that text containing `*\/` cannot end
 *   {{line x}}     text inside a `//` comment (line breaks folded)
 *   {{code x}}     code produced by another generator (ajv, json-schema-to-typescript)
 */
import type HandlebarsApi from "handlebars";
import runtime from "handlebars/runtime.js";
import { ident, OBJECT_LITERAL_PROTO } from "../names.js";

// Precompiled by scripts/templates.mjs (run by `npm run build`) from templates/**/*.hbs, so that a build
// loads only Handlebars' runtime. A computed specifier: the module exists in dist/ only.
const { templates } = (await import(new URL("./templates.js", import.meta.url).href)) as {
  templates: Record<string, TemplateSpecification>;
};

/** Branded string for code that another generator produced and mcpgen vouches for. */
export interface Code {
  readonly code: string;
}

// handlebars/runtime is the full API without the compiler; its typings declare nothing of their own.
const hbs = (runtime as unknown as typeof HandlebarsApi).create();
const safe = (text: string) => new hbs.SafeString(text);

export function jsonLiteral(value: unknown): string {
  const json = JSON.stringify(value);
  // Most literals are numbers, booleans and strings without U+2028/U+2029: nothing to replace, and no keys.
  if (typeof value !== "object" && json !== undefined && (typeof value !== "string" || !LINE_SEPARATORS.test(json))) return json;
  return json
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(OBJECT_LITERAL_PROTO, '["__proto__"]:');
}
const LINE_SEPARATORS = /[\u2028\u2029]/;

/**
 * `jsonLiteral` over several lines, for data a reviewer reads: an object or array that fits in about 100
 * columns stays on one line, a larger one gets a line per member (two-space indents), so a diff shows
 * the member that changed. Keys are printed one by one, by `key`: by default "__proto__" becomes the
 * computed key.
 */
export function jsonBlock(value: unknown, indent = "", key: (name: string) => string = objectKey): string {
  if (value === null || typeof value !== "object") return jsonLiteral(value);
  // What fits on one line is printed flat at once: each member on its own would be printed flat too.
  const flat = flatWithin(value, BLOCK_WIDTH - indent.length, key);
  if (flat !== undefined) return flat;
  const inner = indent + "  ";
  const array = Array.isArray(value);
  const parts = array
    ? value.map((item) => jsonBlock(item, inner, key))
    : Object.entries(value).map(([k, v]) => `${key(k)}: ${jsonBlock(v, inner, key)}`);
  const [open, close] = array ? ["[", "]"] : ["{", "}"];
  return `${open}\n${parts.map((p) => inner + p).join(",\n")}\n${indent}${close}`;
}
const objectKey = (name: string): string => (name === "__proto__" ? '["__proto__"]' : jsonLiteral(name));

/** `JSON.parse` of `jsonBlock`'s lines as JSON text (`rawText`; a "__proto__" key is a plain key there). */
export function jsonParse(value: unknown): string {
  return `JSON.parse(${rawText(asciiOnly(jsonBlock(value, "", jsonLiteral)))})`;
}

/**
 * `JSON.stringify(value)` as a string, byte for byte the text a list sends (a tool's registry entry, which
 * emit prints and keeps per tool and the template places with `{{code}}`): a single-quoted literal, in
 * which a backslash and a quote are escaped, and what is beyond ASCII (`asciiOnly`; JSON text holds no other
 * line break than U+2028 and U+2029). V8 reads it ~25 % faster than the same text as a `String.raw` template
 * (which also makes the template's raw copy): 0.5 ms of start-up per 100 tools of the 100-tool benchmark.
 */
export function jsonText(value: unknown): string {
  return `'${asciiOnly(JSON.stringify(value).replace(/[\\']/g, "\\$&"))}'`;
}

/**
 * `code` with every character beyond ASCII written as a `\u` escape, which a string literal and JSON text
 * both read back as that character (JSON text holds one only inside a string, where no backslash can be
 * escaping it). V8 reads a module of ASCII text as one-byte text, and a single character beyond ASCII makes
 * it all two-byte text, slower to decode and to compile: 0.2 ms of start-up for 130 KB (BENCHMARKS.md).
 */
export function asciiOnly(code: string): string {
  return code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * JSON text as a `String.raw`…`` template that evaluates to it. In the raw template only a backtick and `${`
 * would mean something else; both occur inside JSON strings only, and each is written as a substitution of
 * itself (a backslash before one is always one of an escaped pair, so it escapes nothing).
 */
function rawText(json: string): string {
  return `String.raw\`${json.replace(/`|\$(?=\{)/g, (c) => (c === "`" ? '${"`"}' : '${"$"}'))}\``;
}

/**
 * `value` printed on one line as `jsonBlock` prints it flat (`, ` between members, `: ` after keys), or
 * undefined as soon as it is longer than `width`: a large value is not printed flat only to be refused.
 */
function flatWithin(value: object, width: number, key: (name: string) => string): string | undefined {
  const array = Array.isArray(value);
  const members: unknown[] = array ? value : Object.entries(value);
  let out = array ? "[" : "{";
  for (let i = 0; i < members.length; i++) {
    if (i) out += ", ";
    let member = members[i];
    if (!array) {
      const [name, v] = member as [string, unknown];
      out += `${key(name)}: `;
      member = v;
    }
    const room = width - out.length - 1; // and the closing bracket
    const printed = member === null || typeof member !== "object" ? jsonLiteral(member) : room > 0 ? flatWithin(member, room, key) : undefined;
    if (printed === undefined || printed.length > room) return undefined;
    out += printed;
  }
  out += array ? "]" : "}";
  return out.length <= width ? out : undefined;
}
const BLOCK_WIDTH = 100;

export function docComment(text: string | undefined, indent = ""): string {
  const lines = (text ?? "").trim().replace(/\*\//g, "*\\/").split(/\r\n|[\n\r\u2028\u2029]/);
  return [`${indent}/**`, ...lines.map((l) => `${indent} *${l ? " " + l : ""}`), `${indent} */`].join("\n");
}

hbs.registerHelper("json", (value: unknown) => safe(jsonLiteral(value)));
hbs.registerHelper("jsonAscii", (value: unknown) => safe(asciiOnly(jsonLiteral(value))));
// A lookup by a user-chosen name ("constructor", "toString") must not find Object.prototype's members.
hbs.registerHelper("jsonBlock", (value: unknown) => safe(jsonBlock(value)));
hbs.registerHelper("jsonParse", (value: unknown) => safe(jsonParse(value)));
hbs.registerHelper("record", (value: unknown) => safe(`Object.assign(Object.create(null), ${jsonLiteral(value)})`));
hbs.registerHelper("ident", (value: unknown) => safe(ident(String(value))));
hbs.registerHelper("comment", (value: unknown) => safe(docComment(typeof value === "string" ? value : undefined)));
hbs.registerHelper("line", (value: unknown) => safe(String(value).replace(/[\r\n\u2028\u2029]+/g, " ")));
hbs.registerHelper("code", (value: unknown) => {
  if (value === null || typeof value !== "object" || typeof (value as Code).code !== "string")
    throw new Error("{{code}} takes a Code value");
  return safe((value as Code).code);
});
const compiled = new Map<string, HandlebarsTemplateDelegate>();
const template = (name: string): HandlebarsTemplateDelegate => {
  let found = compiled.get(name);
  if (!found) {
    const spec = templates[name];
    if (!spec) throw new Error(`no template ${name}`);
    found = hbs.template(spec);
    compiled.set(name, found);
  }
  return found;
};
hbs.registerPartial("header", template("header"));

/** Renders `templates/<name>.hbs` with a view-model; output always ends in exactly one newline. */
export function render(name: string, view: object): string {
  const out = template(name)(view).replace(/\r\n/g, "\n");
  let end = out.length;
  while (end > 0 && out[end - 1] === "\n") end--; // not /\n*$/: that regex is quadratic on megabytes
  return out.slice(0, end) + "\n";
}
