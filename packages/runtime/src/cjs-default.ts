/**
 * ajv's helpers are CommonJS modules with `exports.default`: plain Node hands a default import the exports
 * object, while test runners and bundlers that transform modules hand it `default` itself.
 */
export function cjsDefault<T>(module: T | { default: T }): T {
  return typeof module === "object" && module !== null && "default" in module ? module.default : module;
}
