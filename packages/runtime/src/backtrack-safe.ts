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
 * True when a backtracking engine needs time linear in the input. Either no group, alternation or
 * backreference, at most `MAX_OPTIONAL` optional characters (`x?`), and no repetition whose length varies
 * with the input (`*`, `+`, `{n,}`, `{n,m}` with m > n) or, anchored at the start (one starting position),
 * exactly one; or, anchored, the shape of `separatedRepetitions`: whatever may repeat or be left out
 * cannot match what may follow it, and a group's alternatives start with different characters but in one
 * group that matches at most once (`^v[0-9]+\.[0-9]+$`, `^[a-z0-9]+(?:-[a-z0-9]+)*$`, `^(0[1-9]|1[0-2])$`,
 * `^(GET|POST|PUT)$`).
 */
export function backtrackSafe(pattern: string): boolean {
  return oneRepetition(pattern) || separatedRepetitions(pattern);
}

/** A counted repetition (`{n}`, `{n,}`, `{n,m}`) at the start of the text: n, the comma, m. */
const BOUNDS = /^\{(\d+)(?:(,)(\d*))?\}/;

/**
 * How many optional characters (`x?`) the first shape of `backtrackSafe` may have. Each may match or not, so
 * a failing match may try 2^n ways through them from each starting position whatever the input's length:
 * `^a?a?…a?aa…a$` with 24 of each took ~0.1 s on 49 characters, about twice as long with each one more.
 * With up to this many the factor stays small; a pattern with more is left to `separatedRepetitions`, which
 * accepts it only when what each optional character may leave out cannot match what follows it.
 */
const MAX_OPTIONAL = 4;

function oneRepetition(pattern: string): boolean {
  const anchored = pattern.startsWith("^");
  let repeats = 0;
  let optional = 0;
  let inClass = false;
  /** The token before was a quantifier: a `?` after it makes it lazy rather than optional. */
  let quantified = false;
  for (let i = anchored ? 1 : 0; i < pattern.length; i++) {
    const c = pattern[i];
    const afterQuantifier: boolean = quantified;
    quantified = false;
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
      quantified = true;
    } else if (c === "?" && !afterQuantifier) {
      optional++;
      quantified = true;
    } else if (c === "{") {
      const bounds = BOUNDS.exec(pattern.slice(i));
      if (bounds) {
        if (bounds[2] !== undefined && (bounds[3] === "" || Number(bounds[3]) > Number(bounds[1]))) repeats++;
        i += bounds[0].length - 1;
        quantified = true;
      }
    }
  }
  return optional <= MAX_OPTIONAL && (repeats === 0 || (anchored && repeats === 1));
}

/** Code points as sorted, disjoint, inclusive ranges. */
type CharSet = readonly (readonly [number, number])[];
/** One character (a literal, an escape, a class or `.`), or a group of them, and how many times it repeats. */
interface Element {
  /** A character's code points; undefined for a group. */
  readonly set?: CharSet;
  /** A group's alternatives: characters, the first of each required. */
  readonly alternatives?: readonly (readonly Element[])[];
  readonly min: number;
  readonly max: number;
}

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: CharSet = [[0x30, 0x39]];
const WORD: CharSet = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** ECMA-262 white space and line terminators (`\s`). */
const SPACE: CharSet = [[0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]];
const LINE_TERMINATORS: CharSet = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const CONTROL_ESCAPES: Record<string, number> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };

/**
 * The second shape of `backtrackSafe`: `^`, then characters and groups of characters (not nested, their
 * alternatives separated by `|`) each with an optional greedy quantifier, then an optional `$`; where
 * whatever may repeat or be left out cannot match the first character of what may come next (the next
 * iteration of its group included), and no two alternatives of a group can start with the same character
 * (but in one group, see `decided`). Each choice (repeating or going on, one alternative or the next) is then
 * decided by the next character of the input, and backtracking undoes each wrong one at once: `^[a-z0-9]+(?:-[a-z0-9]+)*$`,
 * `^v[0-9]+\.[0-9]+$`, `^\d{4}-(0[1-9]|1[0-2])$`. Anything this parser does not know (`\p{…}`, `\b`, a lazy
 * quantifier, a surrogate escape, a lookaround) is not this shape.
 */
function separatedRepetitions(pattern: string): boolean {
  const chars = [...pattern];
  if (chars[0] !== "^") return false;
  const parsed = sequence(chars, 1, false);
  if (parsed === undefined) return false;
  const [elements, end] = parsed;
  if (end !== chars.length && !(end === chars.length - 1 && chars[end] === "$")) return false;
  return decided(elements, [], { shared: 1 });
}

/**
 * The elements from `chars[i]` up to the end, a `$` (at the top) or, in a group (`inGroup`), the `|` or `)`
 * ending an alternative, and where they stop; undefined when the pattern is not this shape.
 */
function sequence(chars: readonly string[], i: number, inGroup: boolean): [Element[], number] | undefined {
  const elements: Element[] = [];
  while (i < chars.length) {
    const c = chars[i]!;
    if (c === "$" || (inGroup && (c === ")" || c === "|"))) break;
    let element: { set?: CharSet; alternatives?: Element[][] } | undefined;
    if (c === "(") {
      if (inGroup) return undefined;
      const open = chars[i + 1] === "?" ? (chars[i + 2] === ":" ? 3 : 0) : 1; // (?:…) or (…); no lookaround
      if (open === 0) return undefined;
      const alternatives: Element[][] = [];
      let at = i + open - 1;
      do {
        const inner = sequence(chars, at + 1, true);
        if (inner === undefined || inner[0].length === 0 || inner[0][0]!.min === 0) return undefined;
        alternatives.push(inner[0]);
        at = inner[1];
      } while (chars[at] === "|");
      if (chars[at] !== ")") return undefined;
      element = { alternatives };
      i = at + 1;
    } else {
      let set: CharSet | undefined;
      if (c === "\\") [set, i] = escapeSet(chars, i + 1, false);
      else if (c === "[") [set, i] = characterClass(chars, i + 1);
      else if (c === ".") (set = complement(LINE_TERMINATORS)), i++;
      else if ("()|^*+?{}".includes(c)) return undefined;
      else (set = single(c.codePointAt(0)!)), i++;
      if (set === undefined) return undefined;
      element = { set };
    }
    let min = 1;
    let max = 1;
    const q = chars[i];
    if (q === "*" || q === "+" || q === "?") {
      [min, max] = q === "*" ? [0, Infinity] : q === "+" ? [1, Infinity] : [0, 1];
      i++;
    } else if (q === "{") {
      const bounds = BOUNDS.exec(chars.slice(i, i + 24).join(""));
      if (!bounds) return undefined;
      min = Number(bounds[1]);
      max = bounds[2] === undefined ? min : bounds[3] === "" ? Infinity : Number(bounds[3]);
      i += bounds[0].length;
    }
    if (chars[i] === "?" && (q === "*" || q === "+" || q === "?" || q === "{")) return undefined; // lazy
    elements.push({ ...element, min, max });
  }
  return [elements, i];
}

/** The code points a match of `element` can start with. */
const first = (element: Element): CharSet => element.set ?? normalize(element.alternatives!.flatMap((alternative) => first(alternative[0]!)));

/**
 * Whether every choice in `elements` is decided by the next character: each element that may repeat or be
 * left out, and a group that may start again, shares no code point with what may follow it, and a group's
 * alternatives share none among their first characters. `after` is what may follow the whole sequence (the
 * sets of its possible next characters; none at the end of input).
 *
 * One exception, counted in `budget.shared`: a single group of the whole pattern that matches at most once
 * may have alternatives starting alike (`^(GET|POST|PUT)$`, `^(http|https)://`). A failed match then tries
 * each of them, every other choice still decided: as many linear passes as it has alternatives. Two such
 * groups would multiply their alternatives, a repeated one the passes per iteration.
 */
function decided(elements: readonly Element[], after: readonly CharSet[], budget: { shared: number }): boolean {
  /** What may follow the element at `k`: the first characters of the next ones, up to one that is required. */
  const follow = (k: number): CharSet[] => {
    const next = elements[k + 1];
    if (next === undefined) return [...after];
    return next.min === 0 ? [first(next), ...follow(k + 1)] : [first(next)];
  };
  return elements.every((element, k) => {
    const following = follow(k);
    if (element.max !== element.min && following.some((set) => !disjoint(first(element), set))) return false;
    if (element.set !== undefined) return true;
    const alternatives = element.alternatives!;
    const starts = alternatives.map((alternative) => first(alternative[0]!));
    if (starts.some((set, a) => starts.slice(a + 1).some((other) => !disjoint(set, other)))) {
      if (element.max > 1 || budget.shared === 0) return false;
      budget.shared--;
    }
    // An alternative's last character is followed by the group's first one when the group may start again,
    // then by what follows the group.
    const then = element.max > 1 ? [first(element), ...following] : following;
    return alternatives.every((alternative) => decided(alternative, then, budget));
  });
}

/** The set of the escape at `chars[i]` (after its backslash) and where the pattern goes on, or no set. */
function escapeSet(chars: readonly string[], i: number, inClass: boolean): [CharSet | undefined, number] {
  const c = chars[i];
  if (c === undefined) return [undefined, i];
  switch (c) {
    case "d":
      return [DIGIT, i + 1];
    case "D":
      return [complement(DIGIT), i + 1];
    case "w":
      return [WORD, i + 1];
    case "W":
      return [complement(WORD), i + 1];
    case "s":
      return [SPACE, i + 1];
    case "S":
      return [complement(SPACE), i + 1];
  }
  if (c in CONTROL_ESCAPES) return [single(CONTROL_ESCAPES[c]!), i + 1];
  if (c === "b" && inClass) return [single(0x08), i + 1];
  if (c === "0" && !/[0-9]/.test(chars[i + 1] ?? "")) return [single(0), i + 1];
  if (c === "c" && /^[A-Za-z]$/.test(chars[i + 1] ?? "")) return [single(chars[i + 1]!.charCodeAt(0) % 32), i + 2];
  if (c === "x") {
    const hex = chars.slice(i + 1, i + 3).join("");
    return /^[0-9a-fA-F]{2}$/.test(hex) ? [single(parseInt(hex, 16)), i + 3] : [undefined, i];
  }
  if (c === "u") {
    const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(chars.slice(i + 1, i + 10).join(""));
    const code = braced ? parseInt(braced[1]!, 16) : /^[0-9a-fA-F]{4}$/.test(chars.slice(i + 1, i + 5).join("")) ? parseInt(chars.slice(i + 1, i + 5).join(""), 16) : undefined;
    // A surrogate escape may pair with the next one into one code point: not this parser's to decide.
    if (code === undefined || code > MAX_CODE_POINT || (code >= 0xd800 && code <= 0xdfff)) return [undefined, i];
    return [single(code), i + 1 + (braced ? braced[0].length : 4)];
  }
  // In a `u` pattern the only other escapes are of syntax characters (and `-` in a class): themselves.
  return "^$\\.*+?()[]{}|/-".includes(c) ? [single(c.codePointAt(0)!), i + 1] : [undefined, i];
}

/** The set of the class whose body starts at `chars[i]` and where the pattern goes on, or no set. */
function characterClass(chars: readonly string[], i: number): [CharSet | undefined, number] {
  const negated = chars[i] === "^";
  if (negated) i++;
  const ranges: [number, number][] = [];
  while (chars[i] !== "]") {
    if (i >= chars.length) return [undefined, i];
    let low: CharSet | undefined;
    [low, i] = classAtom(chars, i);
    if (low === undefined) return [undefined, i];
    if (chars[i] === "-" && chars[i + 1] !== "]" && chars[i + 1] !== undefined) {
      let high: CharSet | undefined;
      [high, i] = classAtom(chars, i + 1);
      // A range runs between two single characters; `\d-x` is a syntax error in a `u` pattern.
      if (high === undefined || low.length !== 1 || high.length !== 1 || low[0]![0] !== low[0]![1] || high[0]![0] !== high[0]![1]) return [undefined, i];
      ranges.push([low[0]![0], high[0]![0]]);
    } else ranges.push(...low.map(([a, b]) => [a, b] as [number, number]));
  }
  const set = normalize(ranges);
  return [negated ? complement(set) : set, i + 1];
}

function classAtom(chars: readonly string[], i: number): [CharSet | undefined, number] {
  const c = chars[i]!;
  return c === "\\" ? escapeSet(chars, i + 1, true) : [single(c.codePointAt(0)!), i + 1];
}

const single = (code: number): CharSet => [[code, code]];

/** `ranges` sorted and merged; its pairs are read, never changed. */
function normalize(ranges: CharSet): CharSet {
  const sorted = ranges.filter(([a, b]) => a <= b).sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

function complement(set: CharSet): CharSet {
  const out: [number, number][] = [];
  let from = 0;
  for (const [a, b] of normalize(set)) {
    if (a > from) out.push([from, a - 1]);
    from = b + 1;
  }
  if (from <= MAX_CODE_POINT) out.push([from, MAX_CODE_POINT]);
  return out;
}

function disjoint(a: CharSet, b: CharSet): boolean {
  return a.every(([x, y]) => b.every(([u, v]) => y < u || v < x));
}
