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
