/**
 * `const` and `enum` (src/compiler/equality.ts) with the runtime's `equal`: ajv's own keywords are the oracle
 * for the verdicts and errors wherever ajv's equality reads JSON right; where it does not (objects with their
 * own `valueOf`, `toString` or `constructor`), JSON Schema's equality is.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { equal } from "@mcpgen/runtime/validators";
import { createAjv } from "../../dist/compiler/ajv.js";

const SCHEMAS = [
  { const: { a: 1, b: [1, { c: null }] } },
  { const: [1, "1", true] },
  { const: 0 },
  { const: "x" },
  { const: null },
  { enum: [{ a: 1 }, [1, 2], "s", 3, null, false] },
  { enum: ["open", "done"] },
  { enum: Array.from({ length: 250 }, (_, k) => (k % 2 ? { k } : `v${k}`)) }, // long enough to loop
  { type: "object", properties: { x: { const: { b: [1] } }, y: { enum: [[], {}] } } },
];
const DATA: unknown[] = [
  { a: 1, b: [1, { c: null }] },
  { b: [1, { c: null }], a: 1 },
  { a: 1, b: [1, { c: 0 }] },
  { a: 1 },
  [1, "1", true],
  [1, 1, true],
  0,
  -0,
  "x",
  null,
  [1, 2],
  [2, 1],
  "s",
  3,
  false,
  "open",
  { k: 7 },
  { k: 8 },
  "v8",
  { x: { b: [1] }, y: [] },
  { x: { b: [1] }, y: {} },
  { x: { b: [] }, y: [[]] },
  [],
  {},
];

function oracle(schema: object) {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  return (data: unknown) => (validate(data) ? [] : validate.errors);
}

describe("const and enum", () => {
  for (const schema of SCHEMAS) {
    it(`give ajv's verdicts and errors for ${JSON.stringify(schema).slice(0, 60)}`, () => {
      const validate = createAjv("2020-12").compile(schema);
      const expected = oracle(schema);
      for (const data of DATA) {
        const valid = validate(data);
        expect({ data, errors: valid ? [] : validate.errors }).toEqual({ data, errors: expected(data) });
      }
    });
  }

  it("compare objects by their members whatever they are named, where ajv's equality threw or misread them", () => {
    const validate = createAjv("2020-12").compile({ enum: [{ valueOf: 0 }, { toString: "x", a: 1 }, { constructor: { a: 1 } }] });
    for (const text of ['{"valueOf":0}', '{"a":1,"toString":"x"}', '{"constructor":{"a":1}}']) expect(validate(JSON.parse(text))).toBe(true);
    for (const text of ['{"valueOf":1}', '{"toString":"y","a":1}', '{"constructor":{"a":2}}', '{"__proto__":{"a":1}}', "{}"]) {
      expect(validate(JSON.parse(text))).toBe(false);
      expect(validate.errors?.[0]?.message).toBe("must be equal to one of the allowed values");
    }
    const constant = createAjv("2020-12").compile({ properties: { x: { const: { n: [1] } } } });
    expect(constant(JSON.parse('{"x":{"valueOf":1}}'))).toBe(false);
    expect(constant(JSON.parse('{"x":{"n":[1]}}'))).toBe(true);
  });
});

describe("the runtime's equal", () => {
  it("is JSON Schema's equality over JSON values", () => {
    expect(equal({ a: [1, { b: "c" }], d: null }, { d: null, a: [1, { b: "c" }] })).toBe(true);
    expect(equal({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(equal({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(equal([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(equal([], {})).toBe(false);
    expect(equal(0, -0)).toBe(true);
    expect(equal(1, "1")).toBe(false);
    expect(equal(JSON.parse('{"valueOf":1}'), JSON.parse('{"valueOf":1}'))).toBe(true);
    expect(equal(JSON.parse('{"toString":"a"}'), JSON.parse('{"toString":"b"}'))).toBe(false);
    expect(equal(JSON.parse('{"__proto__":[1]}'), JSON.parse('{"__proto__":[1]}'))).toBe(true);
    expect(equal(JSON.parse('{"__proto__":[1]}'), {})).toBe(false);
  });

  it("compares what is not JSON as ajv does", () => {
    expect(equal(Number.NaN, Number.NaN)).toBe(true);
    expect(equal(new Date(5), new Date(5))).toBe(true);
    expect(equal(new Date(5), new Date(6))).toBe(false);
    expect(equal({ at: new Date(5) }, { at: new Date(5) })).toBe(true);
    expect(equal(Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 }))).toBe(true);
    class Point {
      constructor(readonly x: number) {}
    }
    expect(equal(new Point(1), new Point(1))).toBe(true);
    expect(equal(new Point(1), { x: 1 })).toBe(false);
    expect(equal({ a: undefined }, { b: undefined })).toBe(false);
  });
});
