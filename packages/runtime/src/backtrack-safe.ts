/**
 * Which patterns V8's backtracking `RegExp` runs in time linear in the input (`backtrackSafe`). A module of
 * its own, without the RE2 engine of `regexp.ts`: the validator helpers (`validators.ts`) run such patterns
 * and must not load re2js.
 */

/** What ajv's generated code needs of a compiled pattern. */
export interface Pattern {
  test(input: string): boolean;
  toString(): string;
}

/**
 * True when a backtracking engine needs time linear in the input: no group, alternation or backreference,
 * and either no repetition whose length varies with the input (`*`, `+`, `{n,}`, `{n,m}` with m > n; `?`
 * and `{n}` are bounded by the pattern), or exactly one and the pattern anchored at the start — one
 * starting position, at which backtracking retries each of at most n lengths of that repetition once.
 */
export function backtrackSafe(pattern: string): boolean {
  const anchored = pattern.startsWith("^");
  let repeats = 0;
  let inClass = false;
  for (let i = anchored ? 1 : 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      const next = pattern[i + 1];
      if (next === "k" || (next !== undefined && next >= "1" && next <= "9")) return false;
      // \u{…} and \p{…} carry braces that are not a repetition.
      if ((next === "u" || next === "p" || next === "P") && pattern[i + 2] === "{") i = pattern.indexOf("}", i);
      else i++;
      if (i === -1) return false;
    } else if (inClass) {
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
    } else if (c === "(" || c === "|") {
      return false;
    } else if (c === "*" || c === "+") {
      repeats++;
    } else if (c === "{") {
      const bounds = /^\{(\d+)(?:(,)(\d*))?\}/.exec(pattern.slice(i));
      if (bounds?.[2] !== undefined && (bounds[3] === "" || Number(bounds[3]) > Number(bounds[1]))) repeats++;
    }
  }
  return repeats === 0 || (anchored && repeats === 1);
}
