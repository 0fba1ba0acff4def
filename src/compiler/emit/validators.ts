/**
 * Validators: ajv standalone code for each tool's input and output schema, as plain ESM. ajv still prints
 * `require("…")` for its runtime helpers in ESM mode (ajv issues #2209, #1976); those become imports.
 * Also checks `examples` against the schemas they illustrate.
 */
import standaloneModule from "ajv/dist/standalone/index.js";
import { ajvDiagnostics, createAjv } from "../ajv.js";
import { cacheKey, type Cache } from "../cache.js";
import { pointerJoin, type Diagnostic } from "../diagnostics.js";
import type { ToolIR } from "../ir.js";
import { walkSchema } from "../schema-walk.js";

// ajv's standalone module is CommonJS: its default export arrives wrapped under plain Node ESM.
type StandaloneCode = (ajv: unknown, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

export interface ValidatorModule {
  imports: { binding: string; specifier: string }[];
  body: string;
}

export function emitValidator(tool: ToolIR, cache: Cache): { module?: ValidatorModule; diagnostics: Diagnostic[] } {
  const key = cacheKey("validator", tool.dialect, tool.wire.inputSchema, tool.wire.outputSchema ?? null, tool.examples);
  const cached = cache.get(key);
  if (cached !== undefined) return { module: JSON.parse(cached) as ValidatorModule, diagnostics: [] };

  const file = tool.sources[0]!;
  const diagnostics: Diagnostic[] = [];
  const ajv = createAjv(tool.dialect, extensionKeywords(tool));
  const refs: Record<string, string> = {};
  for (const which of ["input", "output"] as const) {
    const schema = which === "input" ? tool.wire.inputSchema : tool.wire.outputSchema;
    if (!schema) continue;
    const at = `/${which}Schema`;
    let validate;
    try {
      ajv.addSchema(schema, which);
      validate = ajv.getSchema(which)!;
    } catch (error) {
      diagnostics.push({ file, pointer: at, message: `cannot compile: ${(error as Error).message}` });
      continue;
    }
    refs[which] = which;
    const check = (value: unknown, pointer: string) => {
      if (!validate(value))
        diagnostics.push(
          ...ajvDiagnostics(validate.errors, file, "").map((d) => ({
            file,
            pointer,
            message: `example does not match the ${which}Schema: ${d.pointer || "(root)"} ${d.message}`,
          })),
        );
    };
    const own = (schema as { examples?: unknown }).examples;
    if (Array.isArray(own)) own.forEach((ex, i) => check(ex, pointerJoin(at, "examples", i)));
    tool.examples.forEach((ex, i) => {
      const value = which === "input" ? ex.input : ex.output;
      if (value !== undefined) check(value, pointerJoin("/examples", i, which));
    });
  }
  tool.examples.forEach((ex, i) => {
    if (ex.output !== undefined && !tool.wire.outputSchema)
      diagnostics.push({ file, pointer: pointerJoin("/examples", i, "output"), message: "example has an output but the tool has no outputSchema" });
  });
  if (diagnostics.length) return { diagnostics };
  const module = toEsm(standaloneCode(ajv, refs));
  cache.set(key, JSON.stringify(module));
  return { module, diagnostics };
}

function extensionKeywords(tool: ToolIR): Set<string> {
  const found = new Set<string>();
  for (const schema of [tool.wire.inputSchema, tool.wire.outputSchema])
    walkSchema(schema, "", (node) => Object.keys(node).forEach((k) => k.startsWith("x-") && found.add(k)));
  return found;
}

/** Turns every `require("x")` in ajv's output into an ESM default import of `x.js`. */
export function toEsm(code: string): ValidatorModule {
  const bindings = new Map<string, string>();
  const body = code
    .replace(/^"use strict";/, "")
    .replace(/require\(("(?:[^"\\]|\\.)*")\)/g, (_, literal: string) => {
      const specifier = JSON.parse(literal) as string;
      let binding = bindings.get(specifier);
      if (!binding) bindings.set(specifier, (binding = `runtime${bindings.size}`));
      return binding;
    });
  if (/\brequire\s*\(/.test(body)) throw new Error("ajv standalone output still calls require()");
  const imports = [...bindings].map(([specifier, binding]) => ({
    binding,
    specifier: /\.[cm]?js$/.test(specifier) ? specifier : specifier + ".js",
  }));
  return { imports, body };
}
