/**
 * Parsing a JSON-RPC message from text, for every transport. `JSON.parse` rounds numbers beyond 2^53, so an
 * id such as 9007199254740993 would be answered as …992 and a cancellation or progress token would name
 * another request. The fast path is `JSON.parse` alone; only a message whose id, `params.requestId` or
 * `params._meta.progressToken` is a number that is not a safe integer is scanned again, and those values
 * become exact `bigint`s (serialized with their digits by `idJson`).
 */

import { isModern } from "./era.js";
import { envelopeProblem, isObject, META_PROTOCOL_VERSION } from "./protocol.js";

/** The members whose numbers must survive exactly (under a batch, each element's). */
const EXACT_PATHS: readonly (readonly string[])[] = [["id"], ["params", "requestId"], ["params", "_meta", "progressToken"]];
/** The deepest of them, counted in containers (a batch adds one). */
const MAX_PATH_DEPTH = 4;

/** `JSON.parse(text)`, with ids and tokens beyond the safe integers kept exact. Throws a SyntaxError like it. */
export function parseMessage(text: string): unknown {
  const message: unknown = JSON.parse(text);
  if (!needsExact(message)) return message;
  const literals = shallowNumbers(text);
  for (const [key, literal] of literals) {
    const path = key.split("\u0000");
    if (Array.isArray(message)) {
      const index = Number(path[0]);
      if (Number.isInteger(index) && isExactPath(path.slice(1))) patch(message[index], path.slice(1), literal);
    } else if (isExactPath(path)) patch(message, path, literal);
  }
  return message;
}

/** How a request's `_meta` member starts in the text. */
const META_KEY = '"_meta":';
/** The same from its second character: V8 finds a pattern that starts with a rare character several times faster. */
const META_KEY_TAIL = META_KEY.slice(1);
/**
 * What replaces a known envelope's text while the rest is parsed: the string "\u0000", which JSON can only
 * write as this escape, so a message that does not contain the escape cannot contain the value.
 */
const STAND_IN_TEXT = `${META_KEY}"\\u0000"`;
const STAND_IN = "\u0000";

/**
 * One client's messages (a stdio connection, or an HTTP keep-alive connection). In the 2026-07-28 era every
 * request carries the same `_meta` envelope (protocol version, client info and capabilities), which costs more
 * to parse than the rest of a small request: long keys and three objects. The parser remembers a valid
 * envelope's exact text and its parsed value, frozen; a request whose `params._meta` is that text is parsed
 * without it and handed the remembered value, which is what `JSON.parse` would have made of it, and which
 * the connection does not check again (`isCheckedEnvelope`).
 *
 * The text is only trusted where it is: the first `"_meta":` in the message must be followed by exactly the
 * remembered text, and after parsing the rest, `params._meta` must hold the stand-in (the last `_meta` of
 * `params` wins, as in `JSON.parse`). Anything else is parsed in full.
 */
export class MessageParser {
  /** `"_meta":` and the envelope, as the client writes it. */
  #text: string | undefined;
  #envelope: Readonly<Record<string, unknown>> | undefined;
  /** Envelopes parsed in full. One is remembered at the 1st, 2nd, 4th, 8th…, so a client sending a different `_meta` every time pays little. */
  #parsed = 0;

  parse(text: string): unknown {
    const known = this.#text;
    if (known !== undefined) {
      const at = text.indexOf(META_KEY_TAIL) - 1;
      // A slice compared whole: `text.startsWith(known, at)` compares char by char, ~4× slower here.
      if (at > 0 && text.slice(at, at + known.length) === known && !text.includes("\\u0000")) {
        const message = parseMessage(text.slice(0, at) + STAND_IN_TEXT + text.slice(at + known.length));
        const params = isObject(message) ? message.params : undefined;
        if (isObject(params) && params._meta === STAND_IN) {
          params._meta = this.#envelope;
          return message;
        }
      }
    }
    const message = parseMessage(text);
    if (text.length <= REMEMBER_AT_MOST) {
      // Most 2025-era requests carry no `_meta`: looked for here, where V8 inlines it, before a call.
      const meta = (message as { params?: { _meta?: unknown } } | null)?.params?._meta;
      if (meta !== undefined) this.#remember(meta);
    }
    return message;
  }

  /** Remembers `meta`, a request's `_meta`, if it is a valid 2026-era envelope (a progress token differs on every request). */
  #remember(meta: unknown): void {
    if (!isObject(meta) || !isModern(meta[META_PROTOCOL_VERSION]) || "progressToken" in meta) return;
    const parsed = ++this.#parsed;
    if ((parsed & (parsed - 1)) !== 0 || envelopeProblem(meta) !== undefined) return;
    this.#text = META_KEY + JSON.stringify(meta);
    this.#envelope = deepFreeze(meta);
    checked.add(this.#envelope);
  }
}

/** The envelopes parsers remembered: each was found valid (`envelopeProblem`) and frozen before. */
const checked = new WeakSet<object>();

/** Whether `meta` is an envelope a `MessageParser` remembered: valid, and frozen so that it stays so. */
export function isCheckedEnvelope(meta: object): boolean {
  return checked.has(meta);
}

/**
 * Envelopes are remembered from messages up to this long: what a client sends on every request is small, and
 * a short text bounds how deep what is frozen can nest.
 */
const REMEMBER_AT_MOST = 4096;

/** `value` and everything in it, frozen: a remembered envelope is handed to every request that sends it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}

function needsExact(message: unknown): boolean {
  if (Array.isArray(message)) return message.some(needsExact);
  if (!isObject(message)) return false;
  if (unsafe(message.id)) return true;
  const params = message.params;
  if (!isObject(params)) return false;
  return unsafe(params.requestId) || (isObject(params._meta) && unsafe(params._meta.progressToken));
}

function unsafe(value: unknown): boolean {
  return typeof value === "number" && !Number.isSafeInteger(value);
}

function isExactPath(path: readonly string[]): boolean {
  return EXACT_PATHS.some((wanted) => wanted.length === path.length && wanted.every((key, i) => key === path[i]));
}

/** Replaces the number at `path` with the exact integer its literal denotes (when it denotes one). */
function patch(root: unknown, path: readonly string[], literal: string): void {
  let container = root;
  for (const key of path.slice(0, -1)) container = isObject(container) && Object.hasOwn(container, key) ? container[key] : undefined;
  const last = path[path.length - 1] as string;
  if (!isObject(container) || !unsafe(container[last])) return;
  const exact = exactInteger(literal);
  if (exact !== undefined) container[last] = exact;
}

/**
 * The source text of every number at most `MAX_PATH_DEPTH` containers deep, by path (keys and array indices
 * joined with NUL); a later duplicate key wins, as in `JSON.parse`. One linear pass over text known to be JSON.
 */
function shallowNumbers(text: string): Map<string, string> {
  const found = new Map<string, string>();
  const path: (string | number)[] = [];
  const inObject: boolean[] = [];
  let expectingKey = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      inObject.push(c === 0x7b);
      path.push(c === 0x7b ? "" : 0);
      expectingKey = c === 0x7b;
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      inObject.pop();
      path.pop();
      i++;
    } else if (c === 0x2c /* , */) {
      if (inObject[inObject.length - 1]) expectingKey = true;
      else path[path.length - 1] = (path[path.length - 1] as number) + 1;
      i++;
    } else if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (expectingKey) {
        const raw = text.slice(i + 1, end - 1);
        path[path.length - 1] = raw.includes("\\") ? (JSON.parse(text.slice(i, end)) as string) : raw;
        expectingKey = false;
      }
      i = end;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < length && isNumberPart(text.charCodeAt(end))) end++;
      if (path.length <= MAX_PATH_DEPTH) found.set(path.join("\u0000"), text.slice(i, end));
      i = end;
    } else {
      i++; // whitespace, ':' and the letters of true, false, null
    }
  }
  return found;
}

/** The index just past the string literal starting at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function isNumberPart(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
}

/** The integer a JSON number literal denotes exactly (`1e20`, `12.0` too), or `undefined` when it is not one. */
export function exactInteger(literal: string): bigint | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!match) return undefined;
  const [, sign = "", whole = "", fraction = "", exponentText = "0"] = match;
  let digits = whole + fraction;
  const exponent = Number(exponentText) - fraction.length;
  if (exponent > 1000) return undefined; // beyond any id anyone sends; not worth a megabyte of zeros
  if (exponent < 0) {
    const cut = digits.length + exponent;
    if (/[1-9]/.test(digits.slice(Math.max(cut, 0)))) return undefined; // a fraction
    digits = digits.slice(0, Math.max(cut, 0)) || "0";
  } else {
    digits += "0".repeat(exponent);
  }
  return BigInt(sign + digits);
}

/**
 * An id (or progress token) as JSON text: a bigint with its digits. Numbers go through `JSON.stringify`, not
 * `String()` or a template literal: those keep each number's text in V8's number-string cache, an
 * old-generation table, so under load every id's string outlived young GCs and was promoted, and the old
 * generation grew until a full GC.
 */
export function idJson(id: string | number | bigint): string {
  return typeof id === "bigint" ? id.toString() : JSON.stringify(id);
}
