/**
 * The validators `check` runs on every input file, precompiled: made by scripts/meta-validators.mjs (run by
 * `npm run build` after tsc) into dist/compiler/meta/, from mcpgen's own meta-schemas (meta-schemas.ts) and
 * the JSON Schema 2020-12 and draft-07 meta-schemas, so that no build compiles them again.
 */
import type { ValidateFunction } from "ajv";
import type { Dialect } from "./ajv.js";

type FileKind = "server" | "annotations" | "tool" | "resource" | "template" | "prompt";

// A computed specifier: the modules exist in dist/ only (they are made from it).
const load = async (name: string) => (await import(new URL(`./meta/${name}.js`, import.meta.url).href)) as Record<string, ValidateFunction>;
const [files, schema2020, schemaDraft07] = await Promise.all([load("files"), load("2020-12"), load("draft-07")]);

/** Each kind of input file against its mcpgen meta-schema. */
export const validateFile = files as Record<FileKind, ValidateFunction>;

/** A schema against its dialect's meta-schema. */
export const validateSchemaOf: Record<Dialect, ValidateFunction> = { "2020-12": schema2020!.schema!, "draft-07": schemaDraft07!.schema! };
