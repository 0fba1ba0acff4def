/**
 * The helpers of the precompiled validators that `mcpgen build` emits: ajv's runtime helpers, some of them
 * replaced by mcpgen's own (`equal`, the `date` formats) and mcpgen's `duplicateItems`. A generated server
 * imports them from here, so it depends on `@mcpgen/runtime` alone.
 */
import equalModule from "ajv/dist/runtime/equal.js";
import ucs2lengthModule from "ajv/dist/runtime/ucs2length.js";
import uriModule from "ajv/dist/runtime/uri.js";
import validationErrorModule from "ajv/dist/runtime/validation_error.js";
import * as formatsModule from "ajv-formats/dist/formats.js";

/**
 * ajv's helpers are CommonJS modules with `exports.default`: plain Node hands a default import the exports
 * object, while test runners and bundlers that transform modules hand it `default` itself.
 */
function cjsDefault<T>(module: T | { default: T }): T {
  return typeof module === "object" && module !== null && "default" in module ? module.default : module;
}

/** fast-deep-equal, as ajv re-exports it (its types describe the module namespace, not the function). */
const deepEqual = cjsDefault(equalModule) as unknown as (a: unknown, b: unknown) => boolean;

/**
 * The deep equality of `const`, `enum` (and of `uniqueItems` over values that are not JSON), in place of
 * ajv's (fast-deep-equal): JSON objects and arrays are equal when their members are, as JSON Schema says.
 * ajv's calls an object's own `valueOf` and `toString` when they are not Object.prototype's, so an input
 * `{"valueOf": 1}` against an object `const` threw (the tool answered an internal error), and it compares a
 * `constructor` member by identity. Anything that is not a plain object or array (a `Date`, a class instance
 * in a handler's output) is compared by ajv's equality, as before.
 */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a !== a && b !== b; // NaN, as ajv's
  const array = Array.isArray(a);
  if (array !== Array.isArray(b)) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b) || !isJsonContainer(a, array)) return deepEqual(a, b);
  if (array) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let k = 0; k < a.length; k++) if (!equal(a[k], other[k])) return false;
    return true;
  }
  const names = Object.keys(a);
  if (names.length !== Object.keys(b).length) return false;
  for (const name of names) if (!Object.hasOwn(b, name) || !equal((a as Record<string, unknown>)[name], (b as Record<string, unknown>)[name])) return false;
  return true;
}

/** An array or object that compares by its members: its prototype is `Array.prototype` (`Object.prototype`) or none. */
function isJsonContainer(value: object, array: boolean): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === (array ? Array.prototype : Object.prototype) || proto === null;
}

export const ucs2length = cjsDefault(ucs2lengthModule);
export const uri: { code: string } = cjsDefault(uriModule);
export const ValidationError = cjsDefault(validationErrorModule);
/** The linear-time engine every `pattern` runs on (ajv's `code.regExp`). */
export { default as regExp } from "./regexp.js";
/**
 * ajv-formats' format definitions, as the validators reach them (`formats.fullFormats.<name>`), with `date`
 * and `date-time` checked character by character: the match arrays of ajv-formats' patterns were most of
 * their cost (a date about 140 ns, against 15). `date-time` takes this way only for the usual shape
 * (`2026-11-25T10:00:00.5Z`, `…+01:00`) and leaves every other string, leap seconds included, to
 * ajv-formats. The same strings pass either way (test/runtime/formats.test.ts compares them).
 */
export const formats = {
  fullFormats: {
    ...formatsModule.fullFormats,
    date: { ...ajvFormat("date"), validate: fullDate },
    "date-time": { ...ajvFormat("date-time"), validate: dateTime },
  },
};

/** An ajv-formats format definition: `{ validate, compare }`. */
function ajvFormat(name: "date" | "date-time"): { validate: (text: string) => boolean; compare: (a: string, b: string) => number | undefined } {
  return formatsModule.fullFormats[name] as ReturnType<typeof ajvFormat>;
}

/** RFC 3339's full-date (`YYYY-MM-DD`, a day the month has), as ajv-formats' `date` checks it. */
function fullDate(text: string): boolean {
  if (typeof text !== "string") return ajvFormat("date").validate(text);
  return text.length === 10 && dateAt(text, 0);
}

/** ajv-formats' `date-time` (a time zone required): at once for the usual shape, else by ajv-formats. */
function dateTime(text: string): boolean {
  return (typeof text === "string" && usualDateTime(text)) || ajvFormat("date-time").validate(text);
}

/** `YYYY-MM-DD`, a day the month has, at `from`. */
function dateAt(text: string, from: number): boolean {
  if (text.charCodeAt(from + 4) !== 0x2d || text.charCodeAt(from + 7) !== 0x2d) return false;
  const year = digits(text, from, from + 4);
  const month = digits(text, from + 5, from + 7);
  const day = digits(text, from + 8, from + 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!);
}
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A valid date-time of the usual shape: `YYYY-MM-DD`, `T` or `t`, `hh:mm:ss` (at most 23:59:59), an optional
 * fraction, then `Z`, `z` or `±hh:mm`. False means only "not of that shape": ajv-formats then decides.
 */
function usualDateTime(text: string): boolean {
  const end = text.length;
  if (end < 20 || (text.charCodeAt(10) | 0x20) !== 0x74 || !dateAt(text, 0)) return false;
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return false;
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let at = 19;
  if (text.charCodeAt(at) === 0x2e) {
    const first = ++at;
    while (at < end && digits(text, at, at + 1) >= 0) at++;
    if (at === first) return false;
  }
  if (at === end - 1) return (text.charCodeAt(at) | 0x20) === 0x7a;
  const sign = text.charCodeAt(at);
  if (at !== end - 6 || (sign !== 0x2b && sign !== 0x2d) || text.charCodeAt(at + 3) !== 0x3a) return false;
  const zoneHour = digits(text, at + 1, at + 3);
  const zoneMinute = digits(text, at + 4, at + 6);
  return zoneHour >= 0 && zoneHour <= 23 && zoneMinute >= 0 && zoneMinute <= 59;
}

/** The number the ASCII digits `text[from..to)` spell, or -1 if one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 0x30;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `uniqueItems` over items not all of scalar types (objects, arrays, or no type declared): which two items are
 * equal. The compiler's keyword (`src/compiler/unique-items.ts`) calls it from the validators it generates.
 *
 * JSON values, which is what a request carries, are compared as JSON Schema says: equal when they are the same
 * JSON value (numbers by value, objects by their members whatever their order). Up to `PAIRWISE_MAX` items
 * are compared pair by pair with `equal` (two small objects: ~70 ns, where keying them costs ~1.7 µs);
 * beyond, each item is keyed in a `Map` (a scalar by itself, an object or array by its canonical text), so
 * the check is linear in the array's size: comparing every pair deeply, as ajv does, stalled a server for
 * seconds on a request of 20,000 small objects. An item that is not a JSON value (a handler's output may
 * hold a `Date`, a class instance, `undefined`) makes the whole array go through `equal`, pair by pair.
 *
 * The pair it returns is the one ajv's own check reports, or undefined when the items are unique: `i`, the
 * last item equal to an earlier one, and `j`, the last earlier item it equals.
 */
export function duplicateItems(items: readonly unknown[]): [i: number, j: number] | undefined {
  if (items.length <= PAIRWISE_MAX) return pairwise(items);
  const scalars = new Map<unknown, number>();
  let composites: Map<string, number> | undefined;
  let i = -1;
  let j = -1;
  for (let k = 0; k < items.length; k++) {
    const item = items[k];
    let seen: Map<unknown, number>;
    let key: unknown = item;
    if (item === null || typeof item === "string" || typeof item === "boolean" || (typeof item === "number" && Number.isFinite(item))) seen = scalars;
    else {
      key = typeof item === "object" ? canonical(item) : undefined;
      if (key === undefined) return pairwise(items);
      seen = composites ??= new Map();
    }
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      i = k;
      j = earlier;
    }
    seen.set(key, k);
  }
  return i === -1 ? undefined : [i, j];
}

/**
 * Up to this many items, `uniqueItems` compares every pair (at most 120 comparisons): here, and in the code
 * the compiler generates for scalar items.
 */
export const PAIRWISE_MAX = 16;

/** The canonical JSON text of a JSON object or array (object keys sorted), or undefined if it is not one. */
function canonical(value: object): string | undefined {
  const array = Array.isArray(value);
  if (!isJsonContainer(value, array)) return undefined;
  if (array) {
    let text = "[";
    for (let k = 0; k < value.length; k++) {
      const item = member(value[k]);
      if (item === undefined) return undefined;
      text += k === 0 ? item : `,${item}`;
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const names = Object.keys(record).sort();
  let text = "{";
  for (let k = 0; k < names.length; k++) {
    const name = names[k] as string;
    const item = member(record[name]);
    if (item === undefined) return undefined;
    text += `${k === 0 ? "" : ","}${JSON.stringify(name)}:${item}`;
  }
  return `${text}}`;
}

/** The canonical JSON text of a JSON value, or undefined if it is not one. */
function member(value: unknown): string | undefined {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? String(value) : undefined; // -0 is "0", as 0 and -0 are one JSON number
    case "boolean":
      return value ? "true" : "false";
    case "object":
      return value === null ? "null" : canonical(value);
    default:
      return undefined;
  }
}

/** ajv's own check: deep equality between every pair, from the last item back (`i` > `j`). */
function pairwise(items: readonly unknown[]): [number, number] | undefined {
  for (let i = items.length; i--; ) for (let j = i; j--; ) if (equal(items[i], items[j])) return [i, j];
  return undefined;
}
