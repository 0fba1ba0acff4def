// The wire schemas of every golden fixture and of the example: flat `$defs` that every `$ref` names
// directly, only the definitions a schema reaches, and the same verdicts as the schemas as written
// (compiled by ajv itself, which resolves the refs across the source files).
import { existsSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { check } from "../../dist/compiler/check.js";
import { load } from "../../dist/compiler/load.js";
import { normalize } from "../../dist/compiler/normalize.js";
import { toIR } from "../../dist/compiler/ir.js";
import { FIXTURES, REPO } from "./helpers.js";

type Node = Record<string, unknown>;
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

const servers = [
  ...readdirSync(FIXTURES, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(path.join(FIXTURES, e.name, "schemas")))
    .map((e) => path.join("test/fixtures", e.name)),
  ".",
].sort();

async function compile(dir: string) {
  const loaded = await load(path.join(dir, "schemas"), REPO);
  const checked = check(loaded.sources!).checked!;
  const { normalized, diagnostics } = normalize(checked);
  expect(diagnostics.filter((d) => d.severity !== "warning")).toEqual([]);
  return { checked, normalized, ir: toIR(checked, normalized) };
}

/** Every subschema, with its pointer (by keyword, as the compiler walks them). */
function* subschemas(node: unknown, at = ""): Generator<[Node, string]> {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return;
  yield [node as Node, at];
  for (const [k, v] of Object.entries(node)) {
    if (["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"].includes(k) && v && typeof v === "object")
      for (const [name, sub] of Object.entries(v)) yield* subschemas(sub, `${at}/${k}/${name}`);
    else if (["allOf", "anyOf", "oneOf", "prefixItems", "items"].includes(k) && Array.isArray(v)) for (const [i, sub] of v.entries()) yield* subschemas(sub, `${at}/${k}/${i}`);
    else if (["additionalProperties", "additionalItems", "contains", "else", "if", "not", "propertyNames", "then", "items", "unevaluatedItems", "unevaluatedProperties"].includes(k))
      yield* subschemas(v, `${at}/${k}`);
  }
}

describe.each(servers)("wire schemas of %s", (dir) => {
  it("name every definition as #/$defs/<name> (or #/definitions/<name>), one level deep, and carry only those reached", async () => {
    const { ir } = await compile(dir);
    for (const tool of ir.tools)
      for (const [which, schema] of Object.entries({ input: tool.wire.inputSchema, output: tool.wire.outputSchema })) {
        if (!schema) continue;
        const where = `${tool.name} ${which}`;
        const container = tool.dialect === "draft-07" ? "definitions" : "$defs";
        const defs = (schema as Node)[container] as Node | undefined;
        const reached = new Set<string>();
        const visit = (node: unknown, root: boolean) => {
          for (const [sub, at] of subschemas(node)) {
            if (at !== "" || !root) expect(sub.$defs ?? sub.definitions, `${where}: nested container at ${at}`).toBeUndefined();
            if (sub === node && root) continue;
            if (sub.$ref === undefined) continue;
            const match = /^#\/(\$defs|definitions)\/([A-Za-z0-9_.-]+)$/.exec(sub.$ref as string);
            expect(match?.[1], `${where}: ${String(sub.$ref)}`).toBe(container);
            const name = match![2]!;
            expect(defs && Object.hasOwn(defs, name), `${where}: ${name} exists`).toBe(true);
            if (!reached.has(name)) reached.add(name), visit(defs![name], false);
          }
        };
        const { [container]: _, ...rest } = schema as Node;
        visit(rest, true);
        expect(Object.keys(defs ?? {}).sort(), `${where}: unreached definitions`).toEqual([...reached].sort());
      }
  });

  it("accept and reject the same values as the schemas as written", async () => {
    const { checked, ir } = await compile(dir);
    const cases = existsSync(path.join(REPO, dir, "cases.json"))
      ? (JSON.parse(await readFile(path.join(REPO, dir, "cases.json"), "utf8")) as Record<string, { valid: unknown[]; invalid: unknown[] }>)
      : {};
    // The source documents, refs by `$id` turned into refs to the file (as the compiler resolves them).
    const ids = new Map<string, string>();
    for (const d of checked.defs) {
      const id = (d.doc.value as Node).$id;
      if (typeof id === "string") ids.set(id.replace(/#$/, ""), d.doc.url);
    }
    const source = (value: unknown): Node => {
      const copy = structuredClone(value) as Node;
      for (const [node] of subschemas(copy)) {
        delete node.$id;
        const ref = node.$ref;
        if (typeof ref === "string") for (const [id, url] of ids) if (ref.startsWith(id)) node.$ref = url + ref.slice(id.length);
      }
      return copy;
    };
    const oracle = (dialect: string, schema: unknown, url: string): ValidateFunction => {
      const options = { strict: false, allErrors: true, validateSchema: false } as const;
      const ajv = addFormats(dialect === "draft-07" ? new Ajv(options) : new Ajv2020(options));
      for (const d of checked.defs) ajv.addSchema(source(d.doc.value), d.doc.url);
      ajv.addSchema(typeof schema === "boolean" ? schema : source(schema), url);
      return ajv.getSchema(url)!;
    };
    const wire = (dialect: string, schema: unknown): ValidateFunction => {
      const ajv = addFormats(dialect === "draft-07" ? new Ajv({ strict: false, validateSchema: false }) : new Ajv2020({ strict: false, validateSchema: false }));
      return ajv.compile(schema as Node);
    };

    let compared = 0;
    const verdicts = new Set<boolean>();
    for (const tool of ir.tools) {
      const file = checked.tools.find((t) => t.file.name === tool.name)!.file;
      for (const which of ["input", "output"] as const) {
        const written = which === "input" ? file.inputSchema : file.outputSchema;
        const emitted = which === "input" ? tool.wire.inputSchema : tool.wire.outputSchema;
        if (written === undefined || emitted === undefined) continue;
        const before = oracle(tool.dialect, written, `${file.doc.url}#${which}`);
        const after = wire(tool.dialect, emitted);
        const seeds: unknown[] = [
          ...(which === "input" ? [...(cases[tool.name]?.valid ?? []), ...(cases[tool.name]?.invalid ?? [])] : []),
          ...tool.examples.map((e) => e[which]).filter((v) => v !== undefined),
          sample(emitted),
          {},
        ];
        for (const value of seeds.flatMap((s) => [s, ...mutations(s)])) {
          const verdict = before(structuredClone(value));
          expect(after(structuredClone(value)), `${tool.name} ${which}: ${JSON.stringify(value)}`).toBe(verdict);
          verdicts.add(verdict);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(ir.tools.length * 10);
    expect([...verdicts].sort()).toEqual([false, true]);
  });
});

/** A value built from the schema's own hints: defaults, consts, enums, examples, or a value of its type. */
function sample(schema: unknown, depth = 0): unknown {
  if (schema === null || typeof schema !== "object" || depth > 4) return null;
  const s = schema as Node;
  if ("const" in s) return s.const;
  if ("default" in s) return s.default;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === "object" || s.properties) return Object.fromEntries(Object.entries((s.properties as Node) ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
  if (type === "array") return [sample(Array.isArray(s.items) ? s.items[0] : s.items, depth + 1)];
  if (type === "string") return "T-1";
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return true;
  return null;
}

const REPLACEMENTS: unknown[] = [null, "", "T-1", "FR", "x".repeat(300), 0, -1, 1.5, 20, 101, true, [], ["a", "a"], {}, { name: "Ada" }];

/** Copies of `value` with one member removed or replaced, at every depth, and with an unknown member. */
function mutations(value: unknown): unknown[] {
  const out: unknown[] = [...REPLACEMENTS];
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      for (const m of mutations(item)) out.push(value.map((v, j) => (j === i ? m : v)));
      out.push(value.filter((_, j) => j !== i));
    });
    out.push([...value, ...value]);
  } else if (value !== null && typeof value === "object") {
    const obj = value as Node;
    for (const key of Object.keys(obj)) {
      const { [key]: _, ...without } = obj;
      out.push(without);
      for (const m of mutations(obj[key])) out.push({ ...obj, [key]: m });
    }
    out.push({ ...obj, unknown_member: 1 });
  }
  return out;
}
