/**
 * The regular-expression engine of the generated validators: every `pattern` and `patternProperties` runs
 * in time linear in the input, where a backtracking `RegExp` can take seconds on 30 bytes (`^(a+)+$`):
 * on V8's `RegExp` when the pattern's shape rules that out (`backtrackSafe`), else on RE2 (re2js). ajv's
 * standalone code calls `regExp(pattern, "u")` once per pattern when a validator module loads; no code is
 * generated at run time. Only a module with a pattern of the second kind imports this engine: the others
 * take `regExp` from the validator helpers, which run V8's alone and so load no re2js (263 KB of code).
 *
 * JSON Schema patterns are ECMA-262 expressions with the `u` flag. `translate` rewrites one into RE2 syntax
 * with the same meaning where the two differ (`.`, `\s`, `\u…` escapes, named groups, `[^]`); what RE2
 * cannot run (backreferences, lookahead and lookbehind) is refused, and the compiler reports it at the
 * pattern's place before anything is generated (`unsupportedPattern`).
 */
import { RE2JS } from "re2js";
import { backtrackSafe, type Pattern } from "./backtrack-safe.js";

export { backtrackSafe, type Pattern };

/** ECMA-262 `\s`: white space and line terminators. */
const SPACE = "\\t\\n\\x{B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
/** ECMA-262 `.` without the `s` flag: anything but a line terminator. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";
const ANY = "\\x{0}-\\x{10FFFF}";
const SYNTAX = "^$\\.*+?()[]{}|/";

/**
 * ajv's `code.regExp` engine: compiles an ECMA-262 pattern (`u` flag) to a linear-time matcher — V8's own
 * `RegExp` when the pattern is one a backtracking engine also runs in linear time (most real patterns:
 * `^T-[0-9]+$`, `^[a-z_]{1,64}$`; several times faster), RE2 otherwise.
 */
export function regExp(pattern: string, _flags?: string): Pattern {
  if (backtrackSafe(pattern)) return new RegExp(pattern, "u");
  const compiled = RE2JS.compile(translate(pattern));
  return { test: (input) => compiled.test(input), toString: () => `/${pattern}/u` };
}

export default regExp;

/** Why the engine cannot run `pattern` (already a valid ECMA-262 expression), or undefined when it can. */
export function unsupportedPattern(pattern: string): string | undefined {
  try {
    RE2JS.compile(translate(pattern));
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** An ECMA-262 pattern (`u` flag, valid) in RE2 syntax with the same meaning. */
export function translate(pattern: string): string {
  let out = "";
  let inClass = false;
  let i = 0;
  const chars = [...pattern];
  while (i < chars.length) {
    const c = chars[i++]!;
    if (c === "\\") {
      const [text, next] = escape(chars, i, inClass);
      out += text;
      i = next;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c === "[" ? "\\[" : c;
    } else if (c === "[") {
      if (chars[i] === "]") (out += `[^${ANY}]`), (i += 1);
      else if (chars[i] === "^" && chars[i + 1] === "]") (out += `[${ANY}]`), (i += 2);
      else {
        inClass = true;
        out += c;
        if (chars[i] === "^") out += chars[i++];
      }
    } else if (c === ".") {
      out += DOT;
    } else if (c === "(" && chars[i] === "?") {
      const head = chars.slice(i, i + 3).join("");
      if (head.startsWith("?=") || head.startsWith("?!") || head === "?<=" || head === "?<!")
        throw new Error("lookahead and lookbehind assertions are not supported by the linear-time engine");
      if (head.startsWith("?<")) {
        out += "(?P<";
        i += 2;
      } else out += c;
    } else out += c;
  }
  return out;
}

/** The escape starting after the backslash at `chars[i]`, in RE2 syntax, and where the pattern goes on. */
function escape(chars: string[], i: number, inClass: boolean): [string, number] {
  const c = chars[i]!;
  if (c === "s") return [inClass ? SPACE : `[${SPACE}]`, i + 1];
  if (c === "S") {
    if (inClass) throw new Error("\\S inside a character class is not supported by the linear-time engine");
    return [`[^${SPACE}]`, i + 1];
  }
  if (c === "u") {
    if (chars[i + 1] === "{") {
      const end = chars.indexOf("}", i);
      return [`\\x{${chars.slice(i + 2, end).join("")}}`, end + 1];
    }
    let code = parseInt(chars.slice(i + 1, i + 5).join(""), 16);
    let next = i + 5;
    // A surrogate pair written as two escapes is one code point.
    if (code >= 0xd800 && code <= 0xdbff && chars[next] === "\\" && chars[next + 1] === "u") {
      const low = parseInt(chars.slice(next + 2, next + 6).join(""), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
        next += 6;
      }
    }
    return [`\\x{${code.toString(16).toUpperCase()}}`, next];
  }
  if (c === "c") return [`\\x{${(chars[i + 1]!.charCodeAt(0) % 32).toString(16).toUpperCase()}}`, i + 2];
  if (c === "0") return ["\\x{0}", i + 1];
  if (c === "b" && inClass) return ["\\x{8}", i + 1];
  if (c === "k" || (c >= "1" && c <= "9")) throw new Error("backreferences are not supported by the linear-time engine");
  if (c === "p" || c === "P") {
    const end = chars.indexOf("}", i);
    const name = chars.slice(i + 2, end).join("").replace(/^(?:Script|sc|General_Category|gc)=/, "");
    return [`\\${c}{${name}}`, end + 1];
  }
  if (c === "/") return ["/", i + 1];
  if (c === "-" || SYNTAX.includes(c)) return [`\\${c}`, i + 1];
  return [`\\${c}`, i + 1]; // \d \D \w \W \b \B \t \n \v \f \r \xHH: the same in RE2
}
