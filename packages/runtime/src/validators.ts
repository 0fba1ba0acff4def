/**
 * ajv's runtime helpers, for the precompiled validators that `mcpgen build` emits: a generated server
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

export const equal = cjsDefault(equalModule);
export const ucs2length = cjsDefault(ucs2lengthModule);
export const uri: { code: string } = cjsDefault(uriModule);
export const ValidationError = cjsDefault(validationErrorModule);
/** The linear-time engine every `pattern` runs on (ajv's `code.regExp`). */
export { default as regExp } from "./regexp.js";
/**
 * ajv-formats' format definitions, as the validators reach them (`formats.fullFormats.<name>`), with `date`
 * checked character by character: the match array of ajv-formats' pattern was most of the cost of a date
 * (about 140 ns, against 15). The same strings pass (test/runtime/formats.test.ts compares the two).
 */
export const formats = { fullFormats: { ...formatsModule.fullFormats, date: { ...ajvDate(), validate: fullDate } } };

/** ajv-formats' `date`: `{ validate, compare }`. */
function ajvDate(): { validate: (text: string) => boolean; compare: (a: string, b: string) => number | undefined } {
  return formatsModule.fullFormats.date as ReturnType<typeof ajvDate>;
}

/** RFC 3339's full-date (`YYYY-MM-DD`, a day the month has), as ajv-formats' `date` checks it. */
function fullDate(text: string): boolean {
  if (typeof text !== "string" || text.length !== 10 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d) {
    return typeof text === "string" ? false : ajvDate().validate(text);
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month]!);
}
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

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
