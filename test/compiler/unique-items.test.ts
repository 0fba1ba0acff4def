/**
 * mcpgen's `uniqueItems` against ajv's own as the oracle: the same verdicts and the same errors, for scalar
 * items compared pairwise (short arrays) or through a Map (long ones), and for items of any type (the
 * runtime's `duplicateItems`: canonical JSON text in a Map, or ajv's deep equality for values that are not
 * JSON). Where ajv's deep equality misreads JSON objects (members named `valueOf`, `toString`,
 * `constructor`), JSON Schema's equality is the oracle.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createAjv } from "../../dist/compiler/ajv.js";

const SCHEMAS = {
  strings: { type: "array", items: { type: "string" }, uniqueItems: true },
  numbers: { type: "array", items: { type: "number" }, uniqueItems: true },
  integers: { type: "array", items: { type: "integer" }, uniqueItems: true },
  mixed: { type: "array", items: { type: ["string", "number", "boolean", "null"] }, uniqueItems: true },
  objects: { type: "array", items: { type: "object" }, uniqueItems: true },
  untyped: { type: "array", uniqueItems: true },
  off: { type: "array", items: { type: "string" }, uniqueItems: false },
};

const long = (n: number, at: number[] = []): unknown[] => Array.from({ length: n }, (_, k) => (at.includes(k) ? "dup" : `item ${k}`));
const DATA: unknown[][] = [
  [],
  ["a"],
  ["a", "b", "c"],
  ["a", "b", "a"],
  ["a", "a", "b", "b"],
  ["b", "a", "c", "a", "b"],
  [1, 2, 1],
  [0, -0],
  [1, 1.0, 2],
  [1.5, 2.5, 1.5],
  ["1", 1],
  [true, false, true],
  [null, "null", null],
  [1, "a", { a: 1 }, { a: 1 }],
  [{ a: 1, b: 2 }, { b: 2, a: 1 }],
  [[1, 2], [1, 2]],
  [{ a: [1] }, { a: [2] }],
  long(16),
  long(16, [3, 15]),
  long(17),
  long(17, [0, 16]),
  long(100, [10, 50, 99]),
  long(1000, [998, 999]),
  [...long(40), 7, 8, 7],
  [[1, [2]], [1, [2]]],
  [[1, [2]], [1, [2, 3]], [1, 2]],
  [1, "1", [1], { "1": 1 }, ["1"], [1]],
  ['{"a":1}', { a: 1 }, "[1]", [1], "null", null, "true", true],
  [{ a: 1, b: { c: [1, { d: 2 }] } }, { b: { c: [1, { d: 2 }] }, a: 1 }],
  [{ a: 1 }, { a: 1, b: undefined }, { a: 1 }],
  [new Date(0), new Date(1), new Date(0)],
  [[new Date(0)], [new Date(0)]],
  objects(17),
  objects(17, [0, 16]),
  objects(1000, [5, 500, 999]),
  [...objects(30), ...objects(30)],
];

/** `n` small distinct objects, except that the items at `at` all equal one another. */
function objects(n: number, at: number[] = []): unknown[] {
  return Array.from({ length: n }, (_, k) => (at.includes(k) ? { k: "dup", tags: ["x"] } : { k, tags: [`t${k % 3}`] }));
}

function oracleErrors(schema: object, data: unknown[]) {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  return validate(data) ? [] : validate.errors;
}

describe("uniqueItems", () => {
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    it(`gives ajv's verdicts and errors for ${name} items`, () => {
      const validate = createAjv("2020-12").compile(schema);
      for (const data of DATA) {
        const valid = validate(data);
        expect({ data, errors: valid ? [] : validate.errors }).toEqual({ data, errors: oracleErrors(schema, data) });
      }
    });
  }

  it('counts "__proto__" as an item like any other, pairwise and through a Map', () => {
    const validate = createAjv("2020-12").compile(SCHEMAS.strings);
    expect(validate(["__proto__", "__proto__"])).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 0, j: 1 });
    expect(validate([...long(30), "__proto__", "constructor", "__proto__"])).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 30, j: 32 });
    expect(validate(["__proto__", "constructor", "toString"])).toBe(true);
  });

  it("compares JSON objects by their members where ajv's deep equality misreads them", () => {
    const validate = createAjv("2020-12").compile(SCHEMAS.objects);
    // ajv's equality calls a.valueOf() / a.toString() when those differ from Object.prototype's: it threw here.
    expect(validate(JSON.parse('[{"valueOf":1},{"valueOf":1}]'))).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 1, j: 0 });
    expect(validate(JSON.parse('[{"toString":"a"},{"toString":"b"},{"valueOf":{}},{"valueOf":[]}]'))).toBe(true);
    // ... and compares a "constructor" member by identity: equal objects passed as distinct.
    expect(validate(JSON.parse('[{"constructor":{"a":1}},{"x":1},{"constructor":{"a":1}}]'))).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 2, j: 0 });
    expect(validate(JSON.parse('[{"__proto__":{"a":1}},{"__proto__":{"a":2}},{"__proto__":null}]'))).toBe(true);
    expect(validate(JSON.parse('[{"__proto__":[1]},{"__proto__":[1]}]'))).toBe(false);
  });

  it("stays linear on a long array", () => {
    const validate = createAjv("2020-12").compile(SCHEMAS.strings);
    const items = Array.from({ length: 200_000 }, (_, k) => `item ${k}`);
    expect(validate(items)).toBe(true); // pairwise, this would be 2·10^10 comparisons
    items.push("item 0");
    expect(validate(items)).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 0, j: 200_000 });
  });

  it("stays linear on a long array of objects", () => {
    const validate = createAjv("2020-12").compile(SCHEMAS.objects);
    const items = objects(200_000);
    expect(validate(items)).toBe(true); // pairwise, 2·10^10 deep comparisons
    items.push({ tags: ["t0"], k: 0 });
    expect(validate(items)).toBe(false);
    expect(validate.errors?.[0]?.params).toEqual({ i: 200_000, j: 0 });
  });
});
