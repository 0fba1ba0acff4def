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
/** ajv-formats' format definitions, as the validators reach them (`formats.fullFormats.<name>`). */
export const formats = { fullFormats: formatsModule.fullFormats };
