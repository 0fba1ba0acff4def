/**
 * ajv's own-property code (`ownProperties: true`, ajv.ts), made cheaper for plain objects, and its options'
 * defaults made once per module. Same verdicts.
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
 * That reduction needs the object's maps known at the check. Where they are not (objects of more shapes than
 * V8 tracks at a property read, as a list's items of several shapes are), each `$protoOf` became a call into
 * V8's runtime, slower than the call it replaced: a task of eight shapes took 151 ns, against 131 with ajv's
 * calls. So a check of a validating function's own `data` (its parameter, which ajv's code never assigns)
 * asks once per call, `($plain ??= $protoOf(data) === $proto)`, each function declaring its `let $plain;`:
 * 151 → 103 ns with eight shapes, 83 → 60 with four, 32 as before with one. A check of a nested value
 * (`data0`, a loop's item) asks every time, as a variable of a loop holds another value at each turn.
 *
 * Loops. ajv walks an object's own keys as `for(const key0 of Object.keys(data)){…}`: an array per object. It
 * becomes `for(const key0 in data){if(!func0.call(data, key0))continue;…}`, the same keys in the same order
 * (`for…in` gives the own enumerable keys first, then inherited enumerable ones, which the check drops),
 * and V8 answers a `hasOwnProperty` of the key `for…in` just gave from the object's map (the task: 72 → 67 ns).
 *
 * Options. ajv's signature defaults its options to `{}` (and, for the 2019-09 and 2020-12 dialects, their
 * `dynamicAnchors` to another `{}`): two objects made on every call the runtime makes, with one argument.
 * Destructured and never kept, the first becomes one frozen object of the module's, `$noOptions`; so does
 * the second (`$noAnchors`) where nothing can write to it: the module's code names no member of
 * `dynamicAnchors` (`$dynamicAnchor` code writes one) and requires no other validator module that could.
 * The example's `add` validators: 35 → 28 ns per input and output checked.
 *
 * Text inside a schema's strings is never rewritten: one regular expression finds the candidates, and one
 * found inside a string literal (the quotes between candidates are walked with `indexOf`) is skipped. For
 * the 7.3 MB of the 1,000-tool benchmark fixture's validators: ~40 ms in a fresh process, ~29 ms on warm
 * code (when the checks and loops were all it rewrote, 28 and 15 ms, against 43 and 34 for a scan taking
 * every literal and every run of code between them with one regular expression). ajv names nothing with a
 * `$`, so `$proto`, `$protoOf` and `$hasOwn` are free.
 */
import { matchOutsideLiterals, STRING_LITERAL } from "./names.js";

/** `data` or `data3`, then `.name` or `["name"]`. */
const ACCESS = String.raw`\b(data\d*)(\.[A-Za-z_$][\w$]*|\[${STRING_LITERAL}\])`;
/**
 * What is rewritten: a guarded check as `properties` prints it (groups 1–4) or as `required` does (5–8); a
 * loop over own keys (9–10); ajv's `hasOwnProperty` alias (11), which ajv declares before the functions that
 * use it. And where a validating function starts (12), as ajv prints its signature, and where any other function
 * may start (13), which ends what is known to be that function's code.
 */
const CANDIDATES = new RegExp(
  [
    String.raw`${ACCESS} !== undefined && (func\d+)\.call\(\1, (${STRING_LITERAL})\)`,
    String.raw`\(${ACCESS} === undefined\) \|\| \(!\((func\d+)\.call\(\5, (${STRING_LITERAL})\)\)\)`,
    String.raw`for\(const (key\d+) of Object\.keys\((data\d*)\)\)\{`,
    String.raw`\bconst (func\d+) = Object\.prototype\.hasOwnProperty;`,
    String.raw`(\bfunction validate\d+\(data, \{instancePath="", parentData, parentDataProperty, rootData=data(?:, dynamicAnchors=\{\})?\}=\{\}\)\{)`,
    String.raw`(\bfunction\b|=>)`,
  ].join("|"),
  "g",
);
const PROTO = "$proto";
const PROTO_OF = "$protoOf";
const HAS_OWN = "$hasOwn";
const PLAIN = "$plain";
const NO_OPTIONS = "$noOptions";
const NO_ANCHORS = "$noAnchors";
/** The end of ajv's signature: its options' default. */
const OPTIONS_DEFAULT = "}={}){";
const ANCHORS_DEFAULT = "dynamicAnchors={}";
/** Code that reads or writes a member of `dynamicAnchors`, or calls into another validator module. */
const USES_ANCHORS = /\bdynamicAnchors\s*[.[]|require\("\.\//;
/** An assignment to `data` (ajv's code never makes one; a rewrite that caches a verdict about it must not meet one). */
const ASSIGNS_DATA = /(?:^|[^.\w$])data\s*=(?!=)/;
const USE_STRICT = '"use strict";';
/** Where the declarations go, after ajv's alias: ajv's output never holds a raw NUL (JSON escapes it). */
const MARK = "\u0000";

export function plainOwnChecks(code: string): string {
  if (!code.includes(".call(") && !code.includes("Object.keys(") && !code.includes(OPTIONS_DEFAULT)) return code;
  let own: string | undefined;
  let checks = 0;
  let loops = 0;
  let signatures = 0;
  const anchorsFree = !USES_ANCHORS.test(code);
  let sharedAnchors = false;
  let hasOwnUsed = false;
  const parts: string[] = [];
  /**
   * The part holding the signature of the function the scan is in (its `data` verdict is cached there); none
   * before the first, and none from where the code may define another function (a `function` or `=>` outside
   * strings) to the next signature: a check there may be in another function than the signature's.
   */
  let signature: number | undefined;
  /** The parts whose function asks `$plain`. */
  const caching = new Set<number>();
  const cache = !ASSIGNS_DATA.test(code);
  /** A candidate rewritten, or undefined to leave it as it is. */
  const rewrite = (match: string, groups: (string | undefined)[]): string | undefined => {
    if (groups[11] !== undefined) {
      signature = parts.length + 1; // where the match goes, after the code before it
      signatures++;
      let rewritten = `${match.slice(0, -OPTIONS_DEFAULT.length)}}=${NO_OPTIONS}){`;
      if (anchorsFree && rewritten.includes(ANCHORS_DEFAULT)) {
        rewritten = rewritten.replace(ANCHORS_DEFAULT, `dynamicAnchors=${NO_ANCHORS}`);
        sharedAnchors = true;
      }
      return rewritten;
    }
    if (groups[12] !== undefined) {
      signature = undefined;
      return undefined;
    }
    const alias = groups[10];
    if (alias !== undefined) {
      if (own !== undefined) return undefined;
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
    if (data === undefined || fn !== own || keyOf(access!) !== JSON.parse(literal!)) return undefined;
    checks++;
    const call = `${fn}.call(${data}, ${literal})`;
    let plain = `${PROTO_OF}(${data}) === ${PROTO}`;
    if (cache && data === "data" && signature !== undefined) {
      caching.add(signature);
      plain = `(${PLAIN} ??= ${plain})`;
    }
    return match.replace(call, () => `(${plain} && !(${literal} in ${PROTO}) || ${call})`);
  };
  /** The code before this is in `parts`. */
  let copied = 0;
  matchOutsideLiterals(code, CANDIDATES, (found) => {
    const [match, ...groups] = found;
    const replacement = rewrite(match, groups);
    if (replacement !== undefined) {
      parts.push(code.slice(copied, found.index), replacement);
      copied = found.index + match.length;
    }
  });
  if (checks === 0 && loops === 0 && signatures === 0) return code;
  parts.push(code.slice(copied));
  for (const part of caching) parts[part] += `let ${PLAIN};`;
  const declared = parts.join("").replace(MARK, () => (checks > 0 ? `\nconst ${PROTO} = Object.prototype, ${PROTO_OF} = Object.getPrototypeOf;\n` : ""));
  let head = hasOwnUsed ? `const ${HAS_OWN} = Object.prototype.hasOwnProperty;\n` : "";
  if (signatures > 0) head += `const ${NO_OPTIONS} = Object.freeze({})${sharedAnchors ? `, ${NO_ANCHORS} = Object.freeze({})` : ""};\n`;
  if (head === "") return declared;
  const at = declared.startsWith(USE_STRICT) ? USE_STRICT.length : 0;
  return `${declared.slice(0, at)}${head}${declared.slice(at)}`;
}

/** The property name of `.name` or `["name"]`. */
function keyOf(access: string): string {
  return access.startsWith(".") ? access.slice(1) : (JSON.parse(access.slice(1, -1)) as string);
}
