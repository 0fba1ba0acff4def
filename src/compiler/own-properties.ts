/**
 * ajv's own-property code (`ownProperties: true`, ajv.ts), made cheaper for plain objects. Same verdicts.
 *
 * Checks. ajv checks a property as `data.id !== undefined && func0.call(data, "id")` (`properties`) and a
 * required one as `(data.id === undefined) || (!(func0.call(data, "id")))`, `func0` being
 * `Object.prototype.hasOwnProperty`. The call was ~4 ns, two per property present: ~40 % of the time of a
 * validator of small objects (a task of the example: 117 → 72 ns). Where the value was just read and is not
 * `undefined`, an object whose prototype is `Object.prototype` has the property as its own unless
 * `Object.prototype` has it too: so each such call becomes
 *
 *     ($protoOf(data) === $proto && !("id" in $proto) || func0.call(data, "id"))
 *
 * which V8's optimizing compiler reduces to a load of the object's prototype (`"id" in $proto` is a constant
 * while `Object.prototype` does not change, and the code is thrown away when it does). Anything else (a class
 * instance a handler returns, an object without a prototype, a name `Object.prototype` has such as
 * `constructor`, a polluted `Object.prototype`) still asks `hasOwnProperty`. Only those two shapes are
 * rewritten, where the read guards the call, and only where the name read is the name asked.
 *
 * Loops. ajv walks an object's own keys as `for(const key0 of Object.keys(data)){…}`: an array per object. It
 * becomes `for(const key0 in data){if(!func0.call(data, key0))continue;…}`, the same keys in the same order
 * (`for…in` gives the own enumerable keys first, then inherited enumerable ones, which the check drops),
 * and V8 answers a `hasOwnProperty` of the key `for…in` just gave from the object's map (the task: 72 → 64 ns).
 *
 * Text inside a schema's strings is never rewritten (each pattern is an alternative to a string literal, so a
 * scan skips strings whole). ajv names nothing with a `$`, so `$proto`, `$protoOf` and `$hasOwn` are free.
 */

/** A JSON string literal as ajv prints one: each pattern below is an alternative to it, so that a scan skips strings whole. */
const LITERAL = String.raw`"(?:[^"\\]|\\.)*"`;
/** `data` or `data3`, then `.name` or `["name"]`. */
const ACCESS = String.raw`(data\d*)(\.[A-Za-z_$][\w$]*|\[${LITERAL}\])`;
const GUARDED = new RegExp(
  String.raw`${LITERAL}|${ACCESS} !== undefined && (func\d+)\.call\(\1, (${LITERAL})\)|\(${ACCESS} === undefined\) \|\| \(!\((func\d+)\.call\(\5, (${LITERAL})\)\)\)`,
  "g",
);
/** ajv's loop over an object's own keys (its `forIn` with `ownProperties`). */
const KEYS_LOOP = new RegExp(String.raw`${LITERAL}|for\(const (key\d+) of Object\.keys\((data\d*)\)\)\{`, "g");
const ALIAS = new RegExp(String.raw`${LITERAL}|\bconst (func\d+) = Object\.prototype\.hasOwnProperty;`, "g");
const PROTO = "$proto";
const PROTO_OF = "$protoOf";
const HAS_OWN = "$hasOwn";
const USE_STRICT = '"use strict";';

export function plainOwnChecks(code: string): string {
  const alias = hasOwnAlias(code);
  const own = alias?.name ?? HAS_OWN;
  const declarations: string[] = [];
  let body = code.replace(GUARDED, (match: string, ...groups: (string | undefined)[]) => {
    const [data, access, fn, literal] = groups[0] !== undefined ? groups.slice(0, 4) : groups.slice(4, 8);
    if (data === undefined || fn !== own || keyOf(access!) !== JSON.parse(literal!)) return match;
    const call = `${fn}.call(${data}, ${literal})`;
    return match.replace(call, () => `(${PROTO_OF}(${data}) === ${PROTO} && !(${literal} in ${PROTO}) || ${call})`);
  });
  if (body !== code) declarations.push(`${PROTO} = Object.prototype, ${PROTO_OF} = Object.getPrototypeOf`);
  const checked = body;
  body = body.replace(KEYS_LOOP, (match: string, key: string | undefined, data: string | undefined) =>
    key === undefined ? match : `for(const ${key} in ${data}){if(!${own}.call(${data}, ${key}))continue;`,
  );
  if (body !== checked && !alias) declarations.push(`${HAS_OWN} = Object.prototype.hasOwnProperty`);
  if (declarations.length === 0) return code;
  const declared = `const ${declarations.join(", ")};`;
  const at = hasOwnAlias(body)?.end ?? (body.startsWith(USE_STRICT) ? USE_STRICT.length : 0);
  return `${body.slice(0, at)}\n${declared}\n${body.slice(at)}`;
}

/** ajv's name for `Object.prototype.hasOwnProperty`, and where its declaration ends. */
function hasOwnAlias(code: string): { name: string; end: number } | undefined {
  for (const match of code.matchAll(ALIAS)) if (match[1] !== undefined) return { name: match[1], end: match.index + match[0].length };
  return undefined;
}

/** The property name of `.name` or `["name"]`. */
function keyOf(access: string): string {
  return access.startsWith(".") ? access.slice(1) : (JSON.parse(access.slice(1, -1)) as string);
}
