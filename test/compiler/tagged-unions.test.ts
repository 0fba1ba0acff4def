// A union whose branches each require a property with a constant of their own is checked by that property:
// one branch per level instead of every branch, the same verdicts, and the wire schema keeps the union.
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { build } from "mcpgen";
import { describeValidationErrors } from "../../packages/runtime/src/validation.js";
import { taggedUnions } from "../../src/compiler/tagged-unions.js";
import { random } from "../helpers/random.js";
import { server, tempProject, wireTools, writeSchemas } from "./helpers.js";

type Validate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

const children = { type: "array", items: { $ref: "#/$defs/block" } };
/** Blocks holding blocks; `children` comes before the tag in two branches, so no keyword order saves the union. */
const blocks = (keyword: "oneOf" | "anyOf") => ({
  type: "object",
  required: ["doc"],
  properties: { doc: { $ref: "#/$defs/block" } },
  $defs: {
    block: {
      [keyword]: [
        { type: "object", required: ["kind"], properties: { children, kind: { const: "paragraph" }, text: { type: "string" } } },
        { type: "object", required: ["kind", "level"], properties: { kind: { enum: ["heading"] }, level: { type: "integer", minimum: 1 }, children } },
        { $ref: "#/$defs/list" },
      ],
    },
    list: { type: "object", required: ["kind"], additionalProperties: false, properties: { children, kind: { const: "list" }, ordered: { type: "boolean" } } },
  },
});

describe("tagged unions", () => {
  it("become a chain picked by the tag, for ajv only", () => {
    const chained = taggedUnions(blocks("oneOf"), "2020-12");
    const block = (chained.$defs as Record<string, Record<string, unknown>>).block!;
    expect(block.oneOf).toBeUndefined();
    expect(block.if).toEqual({ type: "object", required: ["kind"], properties: { kind: { const: "paragraph" } } });
    expect((block.else as Record<string, unknown>).then).toEqual((blocks("oneOf").$defs.block.oneOf as unknown[])[1]);
    expect(JSON.stringify(chained)).toContain('"enum":["paragraph","heading","list"]');
    // The schema given is left as it was.
    expect(blocks("oneOf").$defs.block.oneOf).toHaveLength(3);
  });

  it.each([
    ["tags that repeat", [{ type: "object", required: ["k"], properties: { k: { const: "a" } } }, { type: "object", required: ["k"], properties: { k: { const: "a" } } }]],
    ["a tag that is not required", [{ type: "object", required: ["k"], properties: { k: { const: "a" } } }, { type: "object", properties: { k: { const: "b" } } }]],
    ["a branch that is not only for objects", [{ type: "object", required: ["k"], properties: { k: { const: "a" } } }, { required: ["k"], properties: { k: { const: "b" } } }]],
    ["a default inside", [{ type: "object", required: ["k"], properties: { k: { const: "a" }, n: { default: 1 } } }, { type: "object", required: ["k"], properties: { k: { const: "b" } } }]],
    ["a branch in another module", [{ type: "object", required: ["k"], properties: { k: { const: "a" } } }, { "mcpgen:call": "./defs/x.gen.js#x" }]],
  ])("are left as they are with %s", (_name, branches) => {
    const schema = { type: "object", properties: { v: { oneOf: branches } } };
    expect(taggedUnions(schema, "2020-12")).toBe(schema);
  });

  it("are left as they are in a document with unevaluatedProperties", () => {
    const schema = { ...blocks("oneOf"), unevaluatedProperties: false };
    expect(taggedUnions(schema, "2020-12")).toBe(schema);
  });

  it.each(["oneOf", "anyOf"] as const)("pass and refuse what the %s passes and refuses", (keyword) => {
    const union = new Ajv2020({ allErrors: true, strict: false }).compile(blocks(keyword));
    const chain = new Ajv2020({ allErrors: true, strict: false }).compile(taggedUnions(blocks(keyword), "2020-12"));
    const next = random(keyword === "oneOf" ? 5 : 6);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const block = (depth: number): unknown => {
      if (next() < 0.05) return pick([5, "x", null, [], {}]);
      const node: Record<string, unknown> = {};
      if (next() < 0.95) node.kind = pick(["paragraph", "heading", "list", "list", "quote", 3]);
      if (next() < 0.5) node.text = pick(["t", 4]);
      if (next() < 0.5) node.level = pick([1, 2, 0, "1"]);
      if (next() < 0.3) node.ordered = pick([true, "no"]);
      if (depth > 0 && next() < 0.8) node.children = Array.from({ length: Math.floor(next() * 3) }, () => block(depth - 1));
      return node;
    };
    let valid = 0;
    for (let i = 0; i < 3000; i++) {
      const doc = { doc: block(4) };
      expect(chain(doc), JSON.stringify(doc)).toBe(union(doc));
      if (union(doc)) valid++;
    }
    expect(valid).toBeGreaterThan(300);
    expect(valid).toBeLessThan(2700);
  });
});

/** A document `levels` blocks deep, headings and lists taking turns around a paragraph. */
function deep(levels: number): Record<string, unknown> {
  let doc: Record<string, unknown> = { kind: "paragraph", text: "x" };
  for (let i = 0; i < levels; i++) doc = i % 2 ? { kind: "list", children: [doc] } : { kind: "heading", level: 2, children: [doc] };
  return doc;
}

describe("a tagged union in a generated validator", () => {
  let dir: string;
  let input: Validate;
  let shared: Validate;
  beforeAll(async () => {
    dir = await tempProject(true);
    // The same union in a defs file, which is compiled once into a module of its own that the tool calls.
    const { $defs } = blocks("anyOf");
    const files = server({
      render: { description: "Renders blocks.", inputSchema: blocks("oneOf") },
      outline: { description: "Outlines blocks.", inputSchema: { type: "object", required: ["doc"], properties: { doc: { $ref: "../defs/blocks.json#/$defs/block" } } } },
    });
    await writeSchemas(dir, { ...files, "defs/blocks.json": { $defs } });
    await build({ cwd: dir, cache: false });
    const load = async (tool: string) => ((await import(pathToFileURL(path.join(dir, `generated/validators/${tool}.gen.js`)).href)) as { input: Validate }).input;
    [input, shared] = await Promise.all([load("render"), load("outline")]);
  });

  it("checks them in a defs file's module too", () => {
    expect(shared({ doc: deep(40) })).toBe(true);
    expect(shared({ doc: { ...deep(40), kind: "quote" } })).toBe(false);
  });

  it("checks a document 40 levels deep (3^40 branch checks as a union) and says what is wrong in it", () => {
    const doc = deep(40);
    expect(input({ doc })).toBe(true);
    (doc.children as Record<string, unknown>[])[0]!.kind = "quote";
    expect(input({ doc })).toBe(false);
    expect(describeValidationErrors(input.errors as never)).toBe('/doc/children/0/kind: must be one of "paragraph", "heading", "list"');
    expect(input({ doc: { kind: "heading", level: 0 } })).toBe(false);
    expect(describeValidationErrors(input.errors as never)).toBe("/doc/level: must be >= 1");
  });

  it("keeps the union in the tools/list schema", async () => {
    const tools = await wireTools(dir);
    expect((tools.render!.inputSchema as { $defs: { block: { oneOf: unknown[] } } }).$defs.block.oneOf).toHaveLength(3);
  });
});
