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

type Validate = ((data: unknown) => boolean) & { errors?: unknown };
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ?? standaloneModule) as (ajv: unknown, refs: Record<string, string>) => string;

const NAMES = ["id", "my-key", "a b", "ünï", "a\u2028b", 'quo"te', "$dollar", "constructor", "toString", "hasOwnProperty", "__proto__"];
const SCHEMA = {
  type: "object",
  required: NAMES,
  properties: {
    ...Object.fromEntries(NAMES.filter((n) => n !== "__proto__").map((n) => [n, { type: "string" }])),
    nested: { type: "object", required: ["inner"], properties: { inner: { type: "integer" }, other: { type: "boolean" } } },
  },
};

/** ajv's function (the oracle) and the same standalone code rewritten, evaluated as CommonJS. */
function compile(schema: object): { oracle: Validate; rewritten: Validate; code: string } {
  const ajv = new Ajv2020({ ...COMPILE_OPTIONS, code: { source: true, esm: false, lines: false, optimize: false } });
  ajv.addSchema(schema, "s");
  const code = plainOwnChecks(standaloneCode(ajv, { s: "s" }));
  const module = { exports: {} as Record<string, Validate> };
  new Function("module", "exports", "require", code)(module, module.exports, createRequire(import.meta.url));
  return { oracle: ajv.getSchema("s") as Validate, rewritten: module.exports.s!, code };
}

const full = (): Record<string, unknown> => ({ ...JSON.parse(JSON.stringify(Object.fromEntries(NAMES.map((n) => [n, "x"])))), nested: { inner: 1 } });
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
  return [complete, withoutProto, inherits, partly, new WithGetters(), ...missing, { ...complete, nested: { other: true } }, { ...complete, nested: Object.create({ inner: 1 }) }, {}, [], null, "x"];
}

describe("own-property checks", () => {
  it("rewrite every guarded check of the schema's names, and nothing else", () => {
    const { code } = compile(SCHEMA);
    const properties = Object.keys(SCHEMA.properties).length + 2; // nested's two
    const required = NAMES.length + 1; // nested's inner
    expect(code.match(/\$protoOf\(/g)?.length).toBe(properties + required);
    expect(code).toContain("const $proto = Object.prototype, $protoOf = Object.getPrototypeOf;");
    expect(plainOwnChecks('const x = "data.id !== undefined && func0.call(data, \\"id\\")";')).toBe('const x = "data.id !== undefined && func0.call(data, \\"id\\")";');
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
