/**
 * A tool's examples, checked with the validator module mcpgen writes for it: its standalone code, run with
 * the runtime's helpers, as the server runs it. Needs no ajv, so the thread that makes the types, which has
 * none, checks most of them while the main thread compiles (parallel.ts).
 */
import type { ErrorObject } from "ajv";
import * as regexp from "@mcpgen/runtime/regexp";
import * as helpers from "@mcpgen/runtime/validators";
import * as uriHelper from "@mcpgen/runtime/validators-uri";
import { ajvDiagnostics, type Diagnostic } from "../diagnostics.js";
import { matchOutsideLiterals } from "../names.js";
import { copyJson } from "../schema-walk.js";

/** Where generated validators import the runtime's helpers from (ajv's, and mcpgen's own). */
export const VALIDATOR_HELPERS = "@mcpgen/runtime/validators";

/**
 * The runtime's regular-expression engine (`packages/runtime/src/regexp.ts`), the one place that names it:
 * the compiler checks patterns with it (mcpgen's peer dependency on the runtime keeps the two in step), and
 * ajv's standalone code requires it. `toEsm` keeps that an import of it in a module with a pattern V8's
 * `RegExp` could backtrack on, and makes it one of `VALIDATOR_HELPERS`' `regExp` (V8's alone) in the others.
 */
export const REGEXP_MODULE = "@mcpgen/runtime/regexp";

/** ajv's URI helper, apart from the others: a validator whose code requires it imports it from here. */
export const URI_HELPER = "@mcpgen/runtime/validators-uri";

/** The runtime's modules a generated validator may import, as this process has them. */
const RUNTIME: Record<string, Record<string, unknown>> = { [VALIDATOR_HELPERS]: helpers, [REGEXP_MODULE]: regexp, [URI_HELPER]: uriHelper };

/** Whether `i` is an import of the runtime's (rather than of a shared definition's validator). */
export const fromRuntime = (i: Import): boolean => Object.hasOwn(RUNTIME, i.specifier);

/** A validator module as mcpgen writes it: its imports, and its code (ES module code without them). */
export interface ValidatorModule {
  imports: { name: string; binding: string; specifier: string }[];
  body: string;
}

/** A value that must be valid against a module's export `against`; `at`: its pointer in the tool's file. */
export interface Example {
  against: string;
  value: unknown;
  at: string;
}

/** A module's examples to check. */
export interface Examples {
  file: string;
  module: ValidatorModule;
  examples: Example[];
}

type Import = ValidatorModule["imports"][number];
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * Diagnostics for the examples that `module`'s validators refuse. Its imports of the runtime get the
 * runtime's own; any other import (a shared definition's validator) is what `shared` gives for it.
 */
export function checkExamples({ file, module, examples }: Examples, shared: (i: Import) => unknown = unshared): Diagnostic[] {
  const validators = instantiate(module, shared);
  const diagnostics: Diagnostic[] = [];
  for (const { against, value, at } of examples) {
    const validate = validators[against];
    if (!validate || validate(copyJson(value))) continue;
    diagnostics.push(
      ...ajvDiagnostics(validate.errors, file, "").map((d) => ({
        file,
        pointer: at,
        message: `example does not match the ${against}Schema: ${d.pointer || "(root)"} ${d.message}`,
      })),
    );
  }
  return diagnostics;
}

/** Whether this thread is the first to take the examples of module `index` (see `typesThread`, parallel.ts). */
export const claimed = (claims: Int32Array, index: number): boolean => Atomics.compareExchange(claims, index, 0, 1) === 0;

function unshared(i: Import): never {
  throw new Error(`cannot check examples here: the validators import ${i.name} from ${i.specifier}`);
}

/** The module's exported validators: its code, run as a function whose parameters are its imports. */
function instantiate(module: ValidatorModule, shared: (i: Import) => unknown): Record<string, Validate> {
  const { body, exports } = takeExports(module.body);
  const values = module.imports.map((i) => (fromRuntime(i) ? RUNTIME[i.specifier]![i.name] : shared(i)));
  const result = `return { ${exports.map(([name, fn]) => `${JSON.stringify(name)}: ${fn}`).join(", ")} };`;
  const make = new Function(...module.imports.map((i) => i.binding), `"use strict";${body}\n${result}`) as (...values: unknown[]) => Record<string, Validate>;
  return make(...values);
}

/** ajv's export of a validator. */
const EXPORT = /export const ([A-Za-z_$][\w$]*) = (validate\d+);/g;

/**
 * ajv's exports, `export const <name> = validate<N>;` before each validator's code, taken out of `code` (a
 * string literal that happens to read so is left as it is): the code without them, and `[name, validator]`.
 */
export function takeExports(code: string): { body: string; exports: [name: string, fn: string][] } {
  const exports: [string, string][] = [];
  let body = "";
  let copied = 0;
  matchOutsideLiterals(code, EXPORT, (found) => {
    exports.push([found[1]!, found[2]!]);
    body += code.slice(copied, found.index);
    copied = found.index + found[0].length;
  });
  return { body: body + code.slice(copied), exports };
}
