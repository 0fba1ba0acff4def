// The `jsonBlock` helper of the templates (src/compiler/emit/render.ts): flat where a value fits in about
// 100 columns, a line per member where it does not. And `jsonText` / `jsonParse`: JSON text as a string
// literal (`jsonText`, one line) or a `String.raw` template (`jsonParse`, over lines), byte for byte.
import { describe, expect, it } from "vitest";
import { jsonBlock, jsonLiteral, jsonParse, jsonText } from "../../dist/compiler/emit/render.js";

/** The layout by its definition: every member laid out first, then the value flat if that fits on one line. */
function reference(value: unknown, indent = ""): string {
  if (value === null || typeof value !== "object") return jsonLiteral(value);
  const inner = indent + "  ";
  const array = Array.isArray(value);
  const parts = array
    ? value.map((item) => reference(item, inner))
    : Object.entries(value).map(([k, v]) => `${k === "__proto__" ? '["__proto__"]' : jsonLiteral(k)}: ${reference(v, inner)}`);
  const [open, close] = array ? ["[", "]"] : ["{", "}"];
  const flat = `${open}${parts.join(", ")}${close}`;
  if (indent.length + flat.length <= 100 && !flat.includes("\n")) return flat;
  return `${open}\n${parts.map((p) => inner + p).join(",\n")}\n${indent}${close}`;
}

describe("jsonBlock", () => {
  const cases: { given: unknown; indent?: string; want: string }[] = [
    { given: {}, want: "{}" },
    { given: [], want: "[]" },
    { given: { a: [1, 2], b: { c: null } }, want: '{"a": [1, 2], "b": {"c": null}}' },
    { given: { s: "x".repeat(91) }, want: `{"s": "${"x".repeat(91)}"}` }, // 100 columns: flat
    { given: { s: "x".repeat(92) }, want: `{\n  "s": "${"x".repeat(92)}"\n}` }, // 101
    { given: { s: "x".repeat(89) }, indent: "  ", want: `{"s": "${"x".repeat(89)}"}` },
    { given: { s: "x".repeat(90) }, indent: "  ", want: `{\n    "s": "${"x".repeat(90)}"\n  }` },
    { given: JSON.parse('{"__proto__": {"a": 1}}'), want: '{["__proto__"]: {"a": 1}}' },
    { given: { d: "a\u2028b" }, want: '{"d": "a\\u2028b"}' },
    { given: { a: { b: "y".repeat(95) }, c: 1 }, want: `{\n  "a": {\n    "b": "${"y".repeat(95)}"\n  },\n  "c": 1\n}` },
  ];
  it.each(cases)("lays out $given", ({ given, indent, want }) => {
    expect(jsonBlock(given, indent)).toBe(want);
  });

  it("lays out seeded random values as the definition does", () => {
    let seed = 7; // mulberry32
    const next = () => {
      seed = (seed + 0x6d2b79f5) >>> 0;
      let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const rng = { int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)), chance: (p: number) => next() < p };
    const make = (depth: number): unknown => {
      const kind = rng.int(0, depth > 4 ? 3 : 6);
      if (kind === 0) return rng.int(-5, 100000);
      if (kind === 1) return "w".repeat(rng.int(0, 60));
      if (kind === 2) return rng.chance(0.5) ? null : rng.chance(0.5);
      if (kind === 3) return rng.chance(0.5) ? "__proto__" : "a/b~c";
      if (kind <= 4) return Array.from({ length: rng.int(0, 6) }, () => make(depth + 1));
      const out: Record<string, unknown> = {};
      for (let i = rng.int(0, 6); i > 0; i--) Object.defineProperty(out, rng.chance(0.1) ? "__proto__" : `k${rng.int(0, 30)}`, { value: make(depth + 1), enumerable: true, writable: true, configurable: true });
      return out;
    };
    for (let i = 0; i < 2000; i++) {
      const value = make(0);
      const indent = " ".repeat(rng.int(0, 40));
      expect(jsonBlock(value, indent)).toBe(reference(value, indent));
    }
  });
});

describe("jsonText and jsonParse", () => {
  const evaluate = (code: string): unknown => new Function(`return ${code}`)();

  const awkward = ["`", "${x}", "$${", "\\`", "\\${", "a\\", "\\", "\u2028\u2029", "\ud800", "\r\n\t", '"', "$", "{", "}`${`}", "\u0060", "'", "\\'", "'\\", "\u2028'", "caf\u00e9 \u2014 \u{1f600}", "\\\u00e9", "\u0080\uffff"];
  /** A module of ASCII text is read as one-byte text (asciiOnly). */
  const ASCII = /^[\x00-\x7f]*$/;

  it("is JSON.stringify's text exactly, whatever the strings hold", () => {
    for (const text of awkward) {
      const value = { description: text, [text]: [text, { nested: text }], __proto__key: 1 };
      const code = jsonText(value);
      expect(code.startsWith("'")).toBe(true);
      expect(code).not.toMatch(/[\n\r]/);
      expect(code).toMatch(ASCII);
      expect(evaluate(code)).toBe(JSON.stringify(value));
    }
  });

  it("is read back by jsonParse's code as the same value, over lines, whatever the strings hold", () => {
    for (const text of awkward) {
      const value = { description: text, [text]: [text, { nested: text }], long: "x".repeat(120) };
      const code = jsonParse(value);
      expect(code).toContain("\n");
      expect(code).toMatch(ASCII);
      expect(evaluate(code)).toEqual(value);
    }
  });

  it("keeps a \"__proto__\" key a key when the text is parsed", () => {
    const value = JSON.parse('{"properties":{"__proto__":{"type":"string"}}}') as Record<string, unknown>;
    const parsed = JSON.parse(evaluate(jsonText(value)) as string) as { properties: object };
    expect(Object.keys(parsed.properties)).toEqual(["__proto__"]);
  });
});
