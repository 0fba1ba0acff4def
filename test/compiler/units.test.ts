// Unit tests of the small pieces every stage relies on: config resolution, names, escaping, ESM rewrite.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readdir, readFile, writeFile } from "node:fs/promises";
import standaloneModule from "ajv/dist/standalone/index.js";
import { createAjv } from "../../dist/compiler/ajv.js";
import { resolveConfig } from "../../dist/compiler/config.js";
import { pointerGet, pointerJoin, pointerParse } from "../../dist/compiler/diagnostics.js";
import { checkExamples } from "../../dist/compiler/emit/examples.js";
import { compileModule, toEsm } from "../../dist/compiler/emit/validators.js";
import { MemoryCache, PackCache } from "../../dist/compiler/cache.js";
import { docComment, jsonLiteral, render } from "../../dist/compiler/emit/render.js";
import { ident, typeName } from "../../dist/compiler/names.js";
import { tempProject } from "./helpers.js";

describe("resolveConfig", () => {
  it("resolves every option, with pinned defaults", () => {
    expect(resolveConfig({ cwd: "/p" })).toEqual({
      cwd: "/p",
      schemasDir: "/p/schemas",
      outDir: "/p/generated",
      handlersDir: "/p/src/handlers",
      check: false,
      cacheDir: "/p/node_modules/.cache/mcpgen",
      jobs: undefined,
      client: false,
    });
    expect(resolveConfig({ cwd: "/p", schemas: "s", out: "../o", handlers: "/h", check: true, cache: false, jobs: 3 })).toEqual({
      cwd: "/p",
      schemasDir: "/p/s",
      outDir: "/o",
      handlersDir: "/h",
      check: true,
      cacheDir: undefined,
      jobs: 3,
      client: false,
    });
    expect(resolveConfig().cwd).toBe(path.resolve(process.cwd()));
  });
});

describe("PackCache", () => {
  it("keeps what a build set, and only what the last build used", async () => {
    const dir = await tempProject();
    const first = new PackCache(dir);
    expect(first.get("a")).toBeUndefined();
    first.set("a", "alpha ✓"); // multi-byte UTF-8: lengths are bytes, not characters
    first.set("b", "beta");
    first.set("c", "");
    first.save();
    expect(await readdir(dir)).toEqual(["pack"]); // one file, the temporary one renamed over it

    const second = new PackCache(dir);
    expect([second.get("a"), second.get("b"), second.get("c"), second.get("d")]).toEqual(["alpha ✓", "beta", "", undefined]);
    second.set("d", "delta");
    second.save();

    const third = new PackCache(dir);
    expect(third.get("b")).toBe("beta");
    expect(third.get("d")).toBe("delta");
    third.save(); // added nothing, used 2 of 4: kept as it is
    const fourth = new PackCache(dir);
    expect(fourth.get("a")).toBe("alpha ✓");
    fourth.set("e", "epsilon");
    fourth.save(); // used a and e: b, c and d are dropped
    const fifth = new PackCache(dir);
    expect(["a", "b", "c", "d", "e"].map((k) => fifth.get(k))).toEqual(["alpha ✓", undefined, undefined, undefined, "epsilon"]);
  });

  it("keeps entries a build vouched for without reading them", async () => {
    const dir = await tempProject();
    const first = new PackCache(dir);
    first.set("a", "alpha ✓");
    first.set("b", "beta");
    first.save();
    const second = new PackCache(dir);
    second.keep("a"); // its output was kept as it is
    second.keep("unknown"); // not stored: nothing to keep
    second.set("c", "gamma");
    second.save();
    const third = new PackCache(dir);
    expect(["a", "b", "c", "unknown"].map((k) => third.get(k))).toEqual(["alpha ✓", undefined, "gamma", undefined]);
  });

  it("writes a few new entries beside a large pack, and one pack again once much of it goes unused", async () => {
    const dir = await tempProject();
    const big = "x".repeat(4000);
    const first = new PackCache(dir);
    for (const k of ["a", "b", "c"]) first.set(k, big + k);
    first.save();
    const useAll = (cache: PackCache) => ["a", "b", "c"].forEach((k) => expect(cache.get(k)).toBe(big + k));

    const second = new PackCache(dir);
    useAll(second);
    second.set("d", "delta");
    second.save(); // 5 bytes new, 12,003 used: a delta pack, the pack as it was
    const files = await readdir(dir);
    expect(files).toHaveLength(2);
    expect(files.filter((f) => f.startsWith("pack-"))).toHaveLength(1);

    const third = new PackCache(dir);
    useAll(third);
    expect(third.get("d")).toBe("delta");
    third.set("e", "epsilon");
    third.save();
    expect(await readdir(dir)).toHaveLength(3);

    const fourth = new PackCache(dir);
    expect(fourth.get("a")).toBe(big + "a");
    expect(fourth.get("e")).toBe("epsilon");
    fourth.set("f", "phi");
    fourth.save(); // b and c (8,002 bytes) unused: one pack of a, e and f, the deltas gone
    expect(await readdir(dir)).toEqual(["pack"]);
    const fifth = new PackCache(dir);
    expect(["a", "b", "c", "d", "e", "f"].map((k) => fifth.get(k))).toEqual([big + "a", undefined, undefined, undefined, "epsilon", "phi"]);
  });

  it("treats a damaged pack as empty and replaces it", async () => {
    const dir = await tempProject();
    const cache = new PackCache(dir);
    cache.set("a", "alpha");
    cache.save();
    const bytes = await readFile(path.join(dir, "pack"));
    for (const damaged of [bytes.subarray(0, bytes.length - 1), Buffer.from("not json\nalpha"), Buffer.alloc(0)]) {
      await writeFile(path.join(dir, "pack"), damaged);
      const reopened = new PackCache(dir);
      expect(reopened.get("a")).toBeUndefined();
      reopened.set("a", "again");
      reopened.save();
      expect(new PackCache(dir).get("a")).toBe("again");
    }
  });
});

describe("names", () => {
  it.each([
    ["search", "Search"],
    ["files.read-all", "FilesReadAll"],
    ["get_user", "GetUser"],
    ["3d-print", "T3dPrint"],
    ["_", "T"],
    ["string", "String"],
  ])("typeName(%j) = %j", (given, want) => expect(typeName(given)).toBe(want));

  it("ident rejects anything that is not a plain, unreserved identifier", () => {
    expect(ident("SearchInput")).toBe("SearchInput");
    for (const bad of ["class", "a-b", "1a", "a b", "x;alert(1)", ""]) expect(() => ident(bad)).toThrow(/not a safe identifier/);
  });
});

describe("escaping", () => {
  it("json literals escape U+2028 and U+2029 and round-trip", () => {
    const text = "a\u2028b\u2029c\"d`${e}`</script>";
    const literal = jsonLiteral(text);
    expect(literal).not.toMatch(/[\u2028\u2029]/);
    expect(new Function(`return ${literal}`)()).toBe(text);
  });

  it("doc comments cannot be ended early", () => {
    const comment = docComment("x */ alert(1) /* y\nline two\u2028three");
    expect(comment).toBe("/**\n * x *\\/ alert(1) /* y\n * line two\n * three\n */");
    expect(comment.indexOf("*/")).toBe(comment.length - 2);
  });

  it("templates refuse raw values where code is expected", () => {
    expect(() => render("types.gen.ts", { version: "1", sources: "x", units: ["export const x = 1"] })).toThrow("{{code}} takes a Code value");
  });
});

describe("toEsm", () => {
  it("turns ajv's require() calls into deduplicated imports of the runtime's helpers", () => {
    const module = toEsm(
      '"use strict";export const input = v;const a = require("ajv/dist/runtime/ucs2length").default;const b = require("ajv-formats/dist/formats").fullFormats.date;const c = require("ajv/dist/runtime/ucs2length").default;',
    );
    expect(module.imports).toEqual([
      { name: "ucs2length", binding: "runtime0", specifier: "@mcpgen/runtime/validators" },
      { name: "formats", binding: "runtime1", specifier: "@mcpgen/runtime/validators" },
    ]);
    expect(module.body).toBe("export const input = v;const a = runtime0;const b = runtime1.fullFormats.date;const c = runtime0;");
  });

  it("imports the RE2 engine only for a pattern V8's RegExp could backtrack on", () => {
    const engine = (patterns: string[], use = ""): string | undefined => {
      const calls = patterns.map((p, i) => `const pattern${i} = func1(${JSON.stringify(p)}, "u");`).join("");
      const module = toEsm(`"use strict";export const input = v;const func1 = require("@mcpgen/runtime/regexp").default;${calls}${use}`);
      expect(module.imports.map((i) => [i.name, i.binding])).toEqual([["regExp", "runtime0"]]);
      expect(module.body).toContain("const func1 = runtime0;");
      return module.imports[0]?.specifier;
    };
    expect(engine(["^T-[0-9]+$", "\\.com$"])).toBe("@mcpgen/runtime/validators");
    expect(engine(["^T-[0-9]+$", "^(a+)+$"])).toBe("@mcpgen/runtime/regexp");
    expect(engine(["[a-z]+"])).toBe("@mcpgen/runtime/regexp");
    // The engine used other than as ajv compiles a pattern: the RE2 engine, which runs any pattern.
    expect(engine(["^T-[0-9]+$"], "const other = func1(name, flags);")).toBe("@mcpgen/runtime/regexp");
  });

  it("imports ajv's URI helper from its own module, without the other helpers", () => {
    const module = toEsm('"use strict";export const input = v;const u = require("ajv/dist/runtime/uri").default;const l = require("ajv/dist/runtime/ucs2length").default;');
    expect(module.imports).toEqual([
      { name: "uri", binding: "runtime0", specifier: "@mcpgen/runtime/validators-uri" },
      { name: "ucs2length", binding: "runtime1", specifier: "@mcpgen/runtime/validators" },
    ]);
    expect(module.body).toBe("export const input = v;const u = runtime0;const l = runtime1;");
  });

  it("refuses a helper the runtime does not provide", () => {
    expect(() => toEsm('const q = require("ajv/dist/runtime/quote").default;')).toThrow("ajv/dist/runtime/quote");
  });
});

describe("JSON pointers", () => {
  it("escape, parse and look up segments with / and ~", () => {
    const pointer = pointerJoin("/properties", "a/b", "c~d");
    expect(pointer).toBe("/properties/a~1b/c~0d");
    expect(pointerParse(pointer)).toEqual(["properties", "a/b", "c~d"]);
    expect(pointerGet({ properties: { "a/b": { "c~d": 1 } } }, pointer)).toBe(1);
    expect(pointerGet({ a: 1 }, "/constructor")).toBeUndefined();
  });
});

describe("validators compiled for their standalone code only", () => {
  // ajv's standalone module is CommonJS: its function arrives as the default export, or wrapped in it.
  type StandaloneCode = (ajv: unknown, refs: Record<string, string>) => string;
  const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ?? standaloneModule) as unknown as StandaloneCode;
  it("make the same standalone code as an instance whose functions run, and in process a function that says so when called", () => {
    const schema = { type: "object", required: ["n"], properties: { n: { type: "integer", minimum: 1 }, tag: { type: "string", pattern: "^a" }, kids: { type: "array", items: { $ref: "#" } } } };
    const compile = (standalone: boolean) => {
      const ajv = createAjv("2020-12", { standalone });
      ajv.addSchema(schema, "input");
      const validate = ajv.getSchema("input")!;
      return { validate, code: standaloneCode(ajv, { input: "input" }) };
    };
    const real = compile(false);
    const unrun = compile(true);
    expect(unrun.code).toBe(real.code);
    expect(real.validate({ n: 2, kids: [{ n: 0 }] })).toBe(false);
    expect(real.validate({ n: 1 })).toBe(true);
    expect(() => unrun.validate({ n: 2 })).toThrow(/validate\d+ was compiled for its standalone code only/);
  });
});

describe("examples, checked with the module as it is written", () => {
  // A description that reads like ajv's export of the other validator, in both schemas' printed code.
  const decoy = "export const input = validate1;";
  const request = {
    file: "schemas/tools/t.json",
    dialect: "2020-12" as const,
    schemas: {
      input: { schema: { type: "object", description: decoy, properties: { n: { type: "integer", minimum: 1 }, on: { type: "string", format: "date" } } }, at: "/inputSchema" },
      output: { schema: { type: "object", description: decoy, required: ["ok"], properties: { ok: { type: "boolean" } } }, at: "/outputSchema" },
    },
  };
  const examples = (values: { against: string; value: unknown }[]) => values.map((v, i) => ({ ...v, at: `/examples/${i}` }));

  it("run each export's own validator, with the runtime's helpers, whatever the strings in the code say", () => {
    const { module } = compileModule(request, new MemoryCache());
    expect(module!.body).toContain(decoy);
    const check = (values: { against: string; value: unknown }[]) => checkExamples({ file: request.file, module: module!, examples: examples(values) }).map((d) => `${d.pointer}: ${d.message}`);
    expect(check([{ against: "input", value: { n: 2, on: "2026-02-28" } }, { against: "output", value: { ok: true } }])).toEqual([]);
    expect(check([{ against: "input", value: { n: 0 } }, { against: "input", value: { on: "2026-02-30" } }, { against: "output", value: {} }])).toEqual([
      "/examples/0: example does not match the inputSchema: /n must be >= 1",
      '/examples/1: example does not match the inputSchema: /on must match format "date"',
      '/examples/2: example does not match the outputSchema: (root) missing required property "ok"',
    ]);
  });

  it("caches a module only once its examples pass", () => {
    const cache = new MemoryCache();
    const failing = { ...request, examples: examples([{ against: "input", value: { n: 0 } }]) };
    expect(compileModule(failing, cache).diagnostics.map((d) => d.message)).toEqual(["example does not match the inputSchema: /n must be >= 1"]);
    expect(cache.entries.size).toBe(0);
    const passing = { ...request, examples: examples([{ against: "input", value: { n: 1 } }]) };
    expect(compileModule(passing, cache).diagnostics).toEqual([]);
    expect(cache.entries.size).toBe(1);
  });

  it("refuse a module that imports a shared definition's validator unless told what it is", () => {
    const module = { imports: [{ name: "Task", binding: "shared0", specifier: "./defs/tasks.gen.js" }], body: "export const input = validate0;function validate0(data){const valid = shared0(data);validate0.errors = shared0.errors;return valid;}" };
    const values = examples([{ against: "input", value: 1 }]);
    expect(() => checkExamples({ file: "t.json", module, examples: values })).toThrow("the validators import Task from ./defs/tasks.gen.js");
    const refuse = Object.assign(() => false, { errors: [{ instancePath: "", keyword: "type", message: "must be object", params: {}, schemaPath: "#" }] });
    expect(checkExamples({ file: "t.json", module, examples: values }, () => refuse).map((d) => d.message)).toEqual(["example does not match the inputSchema: (root) must be object"]);
  });
});

