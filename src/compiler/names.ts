/** Names derived from tool and file names for generated identifiers, checked against reserved words. */

const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "as implements interface let package private protected public static yield any boolean constructor declare get " +
    "module require number set string symbol type from of unknown never object undefined await async arguments eval"
  ).split(" "),
);

/** `files.read-all` → `FilesReadAll`; names starting with a digit get a leading `T`. */
export function typeName(name: string): string {
  const pascal = name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
  const safe = pascal === "" ? "T" : /^[0-9]/.test(pascal) ? "T" + pascal : pascal;
  return RESERVED.has(safe) ? safe + "_" : safe;
}

/** A JavaScript identifier made of `name`: other characters become `_`, a leading digit and a reserved word get one. */
export function identifier(name: string): string {
  const id = name.replace(/[^A-Za-z0-9_]/g, "_").replace(/^(?=[0-9])/, "_") || "_";
  return RESERVED.has(id) ? `${id}_` : id;
}

/** `base`, or `base_2`, `base_3`, ... : the first one not in `taken`, which it joins. */
export function uniqueName(base: string, taken: Set<string>): string {
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** A valid identifier, or an error: the last line of defence before a template prints it. */
export function ident(name: string): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) || RESERVED.has(name)) throw new Error(`not a safe identifier: ${JSON.stringify(name)}`);
  return name;
}

/**
 * In a JavaScript object literal, `"__proto__": x` sets the prototype instead of making a key; the computed
 * form `["__proto__"]: x` makes the key. In JSON.stringify output a key starts right after `{` or `,`, and
 * a quote inside a string is always escaped, so this finds exactly the keys.
 */
export const OBJECT_LITERAL_PROTO = /(?<=[{,])"__proto__":/g;

/** A JSON string literal as ajv's standalone code prints one (a regular expression's source). */
export const STRING_LITERAL = String.raw`"(?:[^"\\]|\\.)*"`;

/**
 * Calls `visit` with each match of `pattern` (global) in ajv's `code` that starts outside the code's string
 * literals, in order. A match starting inside a literal is skipped and the search goes on after the literal;
 * a literal inside a match is part of it. ajv quotes only with `"` (JSON strings), so the quotes between
 * matches are walked with `indexOf`: several times faster than a pattern that also takes every literal.
 */
export function matchOutsideLiterals(code: string, pattern: RegExp, visit: (found: RegExpExecArray) => void): void {
  const search = new RegExp(pattern);
  /** The code before this is known: no literal open at it. */
  let known = 0;
  for (let found = search.exec(code); found !== null; found = search.exec(code)) {
    const at = found.index;
    // Past the literals that open before the match; one that is still open at it holds it.
    let quote = code.indexOf('"', known);
    while (quote !== -1 && quote < at) {
      known = literalEnd(code, quote) + 1;
      quote = known > at ? -1 : code.indexOf('"', known);
    }
    if (known > at) {
      search.lastIndex = known;
      continue;
    }
    known = at + found[0].length;
    visit(found);
  }
}

/** Where the string literal opening at `quote` ends: the index of its closing quote (or the code's end). */
function literalEnd(code: string, quote: number): number {
  for (let close = code.indexOf('"', quote + 1); close !== -1; close = code.indexOf('"', close + 1)) {
    let backslashes = 0;
    while (code.charCodeAt(close - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return close;
  }
  return code.length;
}
