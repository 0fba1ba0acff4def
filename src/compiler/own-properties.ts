/**
 * ajv's own-property checks (`ownProperties: true`, ajv.ts), answered without a call for plain objects.
 *
 * ajv checks a property as `data.id !== undefined && func0.call(data, "id")` (`properties`) and a required one
 * as `(data.id === undefined) || (!(func0.call(data, "id")))`, `func0` being `Object.prototype.hasOwnProperty`.
 * That call is ~4 ns, two per property present, and it was ~40 % of the time of a validator of small objects
 * (a task of the example: 117 → 72 ns). Where the value was just read and is not `undefined`, an object whose
 * prototype is `Object.prototype` has the property as its own unless `Object.prototype` has it too: so each
 * such call becomes
 *
 *     ($protoOf(data) === $proto && !("id" in $proto) || func0.call(data, "id"))
 *
 * which V8's optimizing compiler reduces to a load of the object's prototype (`"id" in $proto` is a constant
 * while `Object.prototype` does not change, and the code is thrown away when it does). Anything else (a class
 * instance a handler returns, an object without a prototype, a name `Object.prototype` has such as
 * `constructor`, a polluted `Object.prototype`) still asks `hasOwnProperty`, so every verdict is ajv's.
 * Only the two shapes above are rewritten, where the read guards the call, and only where the name read is
 * the name asked (text inside a schema's strings cannot take that shape: its quotes are escaped). Any other
 * call is left as it is. ajv names nothing with a `$`, so `$proto` and `$protoOf` are free.
 */

/** A JSON string literal as ajv prints one. */
const LITERAL = String.raw`"(?:[^"\\]|\\.)*"`;
/** `data` or `data3`, then `.name` or `["name"]`. */
const ACCESS = String.raw`(data\d*)(\.[A-Za-z_$][\w$]*|\[${LITERAL}\])`;
const GUARDED = new RegExp(
  String.raw`${ACCESS} !== undefined && (func\d+)\.call\(\1, (${LITERAL})\)|\(${ACCESS} === undefined\) \|\| \(!\((func\d+)\.call\(\5, (${LITERAL})\)\)\)`,
  "g",
);
const ALIAS = /\bconst (func\d+) = Object\.prototype\.hasOwnProperty;/;
const PROTO = "$proto";
const PROTO_OF = "$protoOf";

export function plainOwnChecks(code: string): string {
  const alias = ALIAS.exec(code);
  if (!alias) return code;
  const own = alias[1]!;
  let rewritten = 0;
  const body = code.replace(GUARDED, (match: string, ...groups: (string | undefined)[]) => {
    const [data, access, fn, literal] = groups[0] !== undefined ? groups.slice(0, 4) : groups.slice(4, 8);
    if (fn !== own || keyOf(access!) !== JSON.parse(literal!)) return match;
    rewritten++;
    const call = `${fn}.call(${data}, ${literal})`;
    return match.replace(call, () => `(${PROTO_OF}(${data}) === ${PROTO} && !(${literal} in ${PROTO}) || ${call})`);
  });
  if (rewritten === 0) return code;
  return body.replace(alias[0], () => `${alias[0]}\nconst ${PROTO} = Object.prototype, ${PROTO_OF} = Object.getPrototypeOf;`);
}

/** The property name of `.name` or `["name"]`. */
function keyOf(access: string): string {
  return access.startsWith(".") ? access.slice(1) : (JSON.parse(access.slice(1, -1)) as string);
}
