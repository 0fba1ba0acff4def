/**
 * mcpgen's `minLength` / `maxLength` against ajv's own as the oracle: the same verdicts and errors for
 * strings whose UTF-16 length and code-point count differ (astral characters, lone surrogates), at and
 * around every limit.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createAjv } from "../../dist/compiler/ajv.js";

const ASTRAL = "\u{1F600}"; // two UTF-16 units, one code point
const STRINGS = [
  "",
  "a",
  "ab",
  "abc",
  "abcd",
  "abcdefgh",
  ASTRAL,
  ASTRAL.repeat(2),
  ASTRAL.repeat(3),
  ASTRAL.repeat(4),
  `a${ASTRAL}`,
  `${ASTRAL}ab`,
  "\uD800", // a lone high surrogate: one code point
  "\uD800a",
  "\uDC00\uD800", // a low then a high surrogate: two
  ASTRAL.slice(0, 1).repeat(3),
];

function oracle(schema: object) {
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
  return (data: unknown) => (validate(data) ? [] : validate.errors);
}

describe("minLength and maxLength", () => {
  for (const limit of [0, 1, 2, 3, 4, 7]) {
    for (const schema of [{ type: "string", minLength: limit }, { type: "string", maxLength: limit }, { minLength: limit, maxLength: limit + 1 }]) {
      it(`give ajv's verdicts and errors for ${JSON.stringify(schema)}`, () => {
        const validate = createAjv("2020-12").compile(schema);
        const expected = oracle(schema);
        for (const data of [...STRINGS, 12, null]) {
          const valid = validate(data);
          expect({ data, errors: valid ? [] : validate.errors }).toEqual({ data, errors: expected(data) });
        }
      });
    }
  }

  it("counts code points only when the UTF-16 length leaves the verdict open", () => {
    const code = createAjv("2020-12").compile({ type: "string", minLength: 3, maxLength: 5 }).toString();
    expect(code).toContain("data.length > 5 && ");
    expect(code).toContain("data.length < 6 && ");
  });
});
