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
 * and V8 answers a `hasOwnProperty` of the key `for…in` just gave from the object's map (the task: 72 → 67 ns).
 *
 * Text inside a schema's strings is never rewritten: one scan goes over the code, taking string literals whole
 * (with the text around them that cannot start a pattern). For the 7.3 MB of the 1,000-tool benchmark
 * fixture's validators it takes ~65 ms of a cold build (~30 ms on warm code), ~3 % of the build. ajv names
 * nothing with a `$`, so `$proto`, `$protoOf` and `$hasOwn` are free.
 */

/** A JSON string literal as ajv prints one. */
const LITERAL = String.raw`"(?:[^"\\]|\\.)*"`;
/** `data` or `data3`, then `.name` or `["name"]`. */
const ACCESS = String.raw`\b(data\d*)(\.[A-Za-z_$][\w$]*|\[${LITERAL}\])`;
/**
 * One scan for everything: string literals and the code between them that cannot start a pattern (left as
 * they are); a guarded check as `properties` prints it (groups 1–4) or as `required` does (5–8); a loop over
 * own keys (9–10); ajv's `hasOwnProperty` alias (11), which ajv declares before the functions that use it.
 */
const SCAN = new RegExp(
  [
    String.raw`(?:${LITERAL}|(?!data\d*[.[]|\(data|for\(const |const func)[^"])+`,
    String.raw`${ACCESS} !== undefined && (func\d+)\.call\(\1, (${LITERAL})\)`,
    String.raw`\(${ACCESS} === undefined\) \|\| \(!\((func\d+)\.call\(\5, (${LITERAL})\)\)\)`,
    String.raw`for\(const (key\d+) of Object\.keys\((data\d*)\)\)\{`,
    String.raw`\bconst (func\d+) = Object\.prototype\.hasOwnProperty;`,
  ].join("|"),
  "g",
);
const PROTO = "$proto";
const PROTO_OF = "$protoOf";
const HAS_OWN = "$hasOwn";
const USE_STRICT = '"use strict";';
/** Where the declarations go, after ajv's alias: ajv's output never holds a raw NUL (JSON escapes it). */
const MARK = "\u0000";

export function plainOwnChecks(code: string): string {
  if (!code.includes(".call(") && !code.includes("Object.keys(")) return code;
  let own: string | undefined;
  let checks = 0;
  let loops = 0;
  let hasOwnUsed = false;
  const body = code.replace(SCAN, (match: string, ...groups: (string | undefined)[]) => {
    const alias = groups[10];
    if (alias !== undefined) {
      if (own !== undefined) return match;
      own = alias;
      return `${match}${MARK}`;
    }
    const key = groups[8];
    if (key !== undefined) {
      const data = groups[9]!;
      loops++;
      if (own === undefined) hasOwnUsed = true;
      return `for(const ${key} in ${data}){if(!${own ?? HAS_OWN}.call(${data}, ${key}))continue;`;
    }
    const [data, access, fn, literal] = groups[0] !== undefined ? groups.slice(0, 4) : groups.slice(4, 8);
    if (data === undefined || fn !== own || keyOf(access!) !== JSON.parse(literal!)) return match;
    checks++;
    const call = `${fn}.call(${data}, ${literal})`;
    return match.replace(call, () => `(${PROTO_OF}(${data}) === ${PROTO} && !(${literal} in ${PROTO}) || ${call})`);
  });
  if (checks === 0 && loops === 0) return code;
  const declared = body.replace(MARK, () => (checks > 0 ? `\nconst ${PROTO} = Object.prototype, ${PROTO_OF} = Object.getPrototypeOf;\n` : ""));
  if (!hasOwnUsed) return declared;
  const at = declared.startsWith(USE_STRICT) ? USE_STRICT.length : 0;
  return `${declared.slice(0, at)}const ${HAS_OWN} = Object.prototype.hasOwnProperty;\n${declared.slice(at)}`;
}

/** The property name of `.name` or `["name"]`. */
function keyOf(access: string): string {
  return access.startsWith(".") ? access.slice(1) : (JSON.parse(access.slice(1, -1)) as string);
}
