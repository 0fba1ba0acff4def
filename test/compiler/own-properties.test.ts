/**
 * ajv's own-property checks answered without a call for plain objects (`own-properties.ts`), against ajv's
 * own code as the oracle: the same verdicts and errors for plain objects, objects without a prototype, class
 * instances and objects that inherit the names asked, names `Object.prototype` has, names that are not
 * identifiers, and an `Object.prototype` polluted after the code ran.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneModule from "ajv/dist/standalone/index.js";
import { describe, expect, it } from "vitest";
import { COMPILE_OPTIONS } from "../../dist/compiler/ajv.js";
import { plainOwnChecks } from "../../dist/compiler/own-properties.js";

type Validate = ((data: unknown, options?: { instancePath?: string }) => boolean) & { errors?: unknown };
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (ajv: unknown, refs: Record<string, string>) => string;

const NAMES = ["id", "my-key", "a b", "ünï", "a\u2028b", 'quo"te', "$dollar", "constructor", "toString", "hasOwnProperty", "__proto__"];
const SCHEMA = {
  type: "object",
  required: NAMES,
  properties: {
    ...Object.fromEntries(NAMES.filter((n) => n !== "__proto__").map((n) => [n, { type: "string" }])),
    nested: { type: "object", required: ["inner"], properties: { inner: { type: "integer" }, other: { type: "boolean" } }, additionalProperties: false },
    open: { type: "object", patternProperties: { "^n_": { type: "number" } }, propertyNames: { maxLength: 6 } },
  },
  additionalProperties: { type: "string" },
};
/** Keys checked by loops only: no `properties`, so ajv declares no `hasOwnProperty` of its own. */
const LOOPS_ONLY = { type: "object", additionalProperties: false, patternProperties: { "^x": { type: "number" } } };

/** ajv's function (the oracle) and the same standalone code rewritten, evaluated as CommonJS. */
function compile(schema: object): { oracle: Validate; rewritten: Validate; code: string } {
  const ajv = new Ajv2020({ ...COMPILE_OPTIONS, code: { source: true, esm: false, lines: false, optimize: false } });
  ajv.addSchema(schema, "s");
  const code = plainOwnChecks(standaloneCode(ajv, { s: "s" }));
  const module = { exports: {} as Record<string, Validate> };
  new Function("module", "exports", "require", code)(module, module.exports, createRequire(import.meta.url));
  return { oracle: ajv.getSchema("s") as Validate, rewritten: module.exports.s!, code };
}

const full = (): Record<string, unknown> => ({ ...JSON.parse(JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, "x"])))), nested: { inner: 1 }, open: { n_1: 1, m: "x" } });
class WithGetters {
  get id(): string {
    return "T-1";
  }
  nested = { inner: 1 };
}

function cases(): unknown[] {
  const complete = full();
  const withoutProto = Object.assign(Object.create(null) as object, complete);
  const inherits = Object.create(complete) as object;
  const partly = Object.assign(Object.create({ id: "inherited" }) as object, { ...complete, id: undefined });
  const missing = NAMES.map((name) => {
    const copy = full();
    delete copy[name];
    return copy;
  });
  const extra = (value: object): object => ({ ...complete, ...value });
  const inheritedExtra = (into: string): object => ({ ...complete, [into]: Object.assign(Object.create({ n_9: "not a number", longername: 1 }) as object, { n_1: 1 }) });
  return [
    complete,
    withoutProto,
    inherits,
    partly,
    new WithGetters(),
    ...missing,
    extra({ nested: { other: true } }),
    extra({ nested: Object.create({ inner: 1 }) }),
    extra({ nested: { inner: 1, stray: 1, [Symbol("s")]: 1 } }),
    extra({ nested: Object.assign(Object.create({ stray: 1 }) as object, { inner: 1 }) }),
    extra({ open: { n_1: "one", toolongname: 1, 3: 1, 1: 2 } }),
    inheritedExtra("open"),
    extra({ additional: "x", more: 2 }),
    {},
    [],
    null,
    "x",
  ];
}

describe("own-property checks", () => {
  it("rewrite every guarded check and every loop over own keys, and nothing inside a string", () => {
    const { code } = compile(SCHEMA);
    const properties = Object.keys(SCHEMA.properties).length + 2; // nested's two
    const required = NAMES.length + 1; // nested's inner
    expect(code.match(/\$protoOf\(/g)?.length).toBe(properties + required);
    // The function's own `data` asks its prototype once per call; `nested` (`data` + digits) at every check.
    expect(code.match(/\(\$plain \?\?= \$protoOf\(data\) === \$proto\)/g)?.length).toBe(Object.keys(SCHEMA.properties).length + NAMES.length);
    expect(code.match(/\$protoOf\(data\d+\)/g)?.length).toBe(3);
    expect(code.match(/\bfunction validate\d+\(data\b[^)]*\)\{let \$plain;/g)?.length).toBe(1);
    expect(code).toContain("const $proto = Object.prototype, $protoOf = Object.getPrototypeOf;");
    expect(code).not.toContain("Object.keys(");
    expect(code.match(/for\(const key\d+ in data\d*\)\{if\(!func\d+\.call\(data\d*, key\d+\)\)continue;/g)?.length).toBe(4); // top, nested, and open twice (patternProperties, propertyNames)
    expect(compile(LOOPS_ONLY).code).toMatch(/^"use strict";const \$hasOwn = Object\.prototype\.hasOwnProperty;\n.*for\(const key0 in data\)\{if\(!\$hasOwn\.call\(data, key0\)\)continue;/s);
    const inString = 'const x = "data.id !== undefined && func0.call(data, \\"id\\") for(const key0 of Object.keys(data)){";';
    expect(plainOwnChecks(`const func0 = Object.prototype.hasOwnProperty;${inString}`)).toBe(`const func0 = Object.prototype.hasOwnProperty;${inString}`);
    // Literals ending in escaped backslashes, and an escaped quote after one: where each literal ends.
    const escapes = 'const func0 = Object.prototype.hasOwnProperty;const z = "q \\\\\\" for(const key0 of Object.keys(data)){ x";const y = "a \\\\";for(const key1 of Object.keys(data)){';
    expect(plainOwnChecks(escapes)).toBe(escapes.replace("for(const key1 of Object.keys(data)){", "for(const key1 in data){if(!func0.call(data, key1))continue;"));
  });

  it("cache the verdict about `data` only in a function that cannot hold another, in code that never assigns `data`", () => {
    const signature = 'function validate0(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){';
    const check = 'if(data.id !== undefined && func0.call(data, "id")){}';
    const alias = "const func0 = Object.prototype.hasOwnProperty;";
    const cached = plainOwnChecks(`${alias}${signature}${check}}`);
    const rewritten = signature.replace("dynamicAnchors={}}={})", "dynamicAnchors=$noAnchors}=$noOptions)");
    expect(cached).toContain(`${rewritten}let $plain;if(data.id !== undefined && (($plain ??= $protoOf(data) === $proto) && !("id" in $proto) || func0.call(data, "id"))){}`);
    const inline = '(($protoOf(data) === $proto && !("id" in $proto) || func0.call(data, "id")))';
    for (const between of ["const f = (x) => x;", "function inner(data){}", `function validate1(data){}`]) {
      const code = plainOwnChecks(`${alias}${signature}${between}${check}}`);
      expect(code).toContain(`${rewritten}${between}if(data.id !== undefined && ${inline.slice(1, -1)}`);
      expect(code).not.toContain("$plain");
    }
    // The words inside a string define nothing.
    const quoted = 'const s = "function => x";';
    expect(plainOwnChecks(`${alias}${signature}${quoted}${check}}`)).toContain(`${rewritten}let $plain;${quoted}if(data.id !== undefined && (($plain ??=`);
    expect(plainOwnChecks(`${alias}${signature}data = data || {};${check}}`)).not.toContain("$plain");
    expect(plainOwnChecks(`${alias}${check}`)).not.toContain("$plain"); // no function around it
  });

  it("default a call's options to one frozen object of the module's, and `dynamicAnchors` only where nothing writes to it", () => {
    const { code, oracle, rewritten } = compile(SCHEMA);
    const signatures = code.match(/\bfunction validate\d+\(data, \{[^}]*\}=[^)]*\)\{/g) ?? [];
    expect(signatures.length).toBeGreaterThan(0);
    for (const signature of signatures) expect(signature).toMatch(/, dynamicAnchors=\$noAnchors\}=\$noOptions\)\{$/);
    expect(code).toMatch(/^"use strict";const \$noOptions = Object\.freeze\(\{\}\), \$noAnchors = Object\.freeze\(\{\}\);\n/);
    // The options a caller passes are still the ones used.
    const wrong = { ...full(), nested: { inner: "x" } };
    expect(rewritten(wrong, { instancePath: "/at" })).toBe(false);
    expect(oracle(wrong, { instancePath: "/at" })).toBe(false);
    expect(rewritten.errors).toEqual(oracle.errors);
    expect((rewritten.errors as { instancePath: string }[])[0]!.instancePath).toBe("/at/nested/inner");

    // `$dynamicAnchor` code writes to `dynamicAnchors`: each call keeps its own.
    const tree = {
      $id: "https://example.com/tree",
      $dynamicAnchor: "node",
      type: "object",
      properties: { value: { type: "number" }, children: { type: "array", items: { $dynamicRef: "#node" } } },
    };
    const dynamic = compile(tree);
    for (const data of [{ value: 1, children: [{ value: 2, children: [] }] }, { value: 1, children: [{ value: "x" }] }, { children: [{ children: [{ value: null }] }] }]) {
      for (let i = 0; i < 3; i++) expect(dynamic.rewritten(data)).toBe(dynamic.oracle(data));
    }
    expect(dynamic.code).toContain("dynamicAnchors={}}=$noOptions){");
    expect(dynamic.code).not.toContain("$noAnchors");
    // A call into another validator module, which may write to the `dynamicAnchors` it is given.
    const calling = 'function validate0(data, {instancePath="", parentData, parentDataProperty, rootData=data, dynamicAnchors={}}={}){return require("./defs/x.gen.js").x(data, {dynamicAnchors});}';
    expect(plainOwnChecks(calling)).toContain("dynamicAnchors={}}=$noOptions){");
    // A signature inside a string is text.
    const quoted = `const s = ${JSON.stringify(calling)};`;
    expect(plainOwnChecks(quoted)).toBe(quoted);
  });

  it("give ajv's verdicts and errors, also once optimized", () => {
    const { oracle, rewritten } = compile(SCHEMA);
    for (let round = 0; round < 2000; round++) {
      for (const data of cases()) {
        const valid = rewritten(data);
        if (round === 0 || round === 1999) expect({ data, valid, errors: valid ? null : rewritten.errors }).toEqual({ data, valid: oracle(data), errors: oracle.errors ?? null });
      }
    }
  });

  it("give ajv's verdicts and errors where only loops were rewritten", () => {
    const { oracle, rewritten } = compile(LOOPS_ONLY);
    for (const data of [{}, { x1: 1 }, { x1: "a", y: 1 }, Object.create({ y: 1 }), Object.assign(Object.create(null) as object, { y: 1, x: 2 }), []]) {
      const valid = rewritten(data);
      expect({ valid, errors: valid ? null : rewritten.errors }).toEqual({ valid: oracle(data), errors: oracle.errors ?? null });
    }
  });

  it("see a name that Object.prototype gains later as inherited, not own", () => {
    const { oracle, rewritten } = compile({ type: "object", required: ["zz"], properties: { zz: { type: "number" } } });
    for (let i = 0; i < 5000; i++) expect(rewritten({ zz: i })).toBe(true);
    const proto = Object.prototype as Record<string, unknown>;
    proto.zz = 1;
    try {
      expect([rewritten({}), oracle({})]).toEqual([false, false]);
      expect(rewritten({ zz: 2 })).toBe(true);
      expect(rewritten(Object.create(null))).toBe(false);
    } finally {
      delete proto.zz;
    }
    expect(rewritten({})).toBe(false);
  });
});
