// Shared definitions: a defs file's definition reached by several tools is compiled once, in
// validators/defs/<file>.gen.js, and the tools' validators call it. Accept/reject and error paths are
// those of the wire schema compiled whole; defaults are applied through a call for inputs, not outputs.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { describe, expect, it } from "vitest";
import { build } from "mcpgen";
import { server, tempProject, wireTools, writeSchemas } from "./helpers.js";

type Validate = ((value: unknown) => boolean) & { errors?: { instancePath: string; keyword: string }[] | null };
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (a: Ajv2020) => Ajv2020;

const item = {
  type: "object",
  required: ["id", "name"],
  additionalProperties: false,
  properties: {
    id: { $ref: "#/$defs/itemId" },
    name: { type: "string", minLength: 1, maxLength: 20 },
    size: { enum: ["s", "m", "l"], default: "m" },
    tags: { type: "array", items: { type: "string" }, uniqueItems: true },
    owner: { $ref: "owner.json" },
    parts: { type: "array", items: { $ref: "#" } },
  },
  $defs: { itemId: { type: "string", pattern: "^I-[0-9]+$" } },
};
const owner = { type: "object", required: ["name"], properties: { name: { type: "string" }, email: { type: "string", format: "email" }, team: { type: "string", default: "core" } } };

const tools = {
  get_item: { inputSchema: { type: "object", required: ["id"], properties: { id: { $ref: "../defs/item.json#/$defs/itemId" } } }, outputSchema: { $ref: "../defs/item.json" } },
  put_item: {
    inputSchema: { type: "object", required: ["item"], additionalProperties: false, properties: { item: { $ref: "../defs/item.json" }, note: { type: "string", default: "" } } },
    outputSchema: { type: "object", required: ["items"], properties: { items: { type: "array", items: { $ref: "../defs/item.json" } } } },
  },
  // An anyOf of the definition: the defaults walk does not enter it, so no default is applied there.
  pick_item: {
    inputSchema: { type: "object", properties: { choice: { anyOf: [{ $ref: "../defs/item.json" }, { type: "string" }] } } },
  },
  // unevaluatedProperties crosses a $ref: this one stays inlined.
  tag_item: {
    inputSchema: { type: "object", allOf: [{ $ref: "../defs/owner.json" }], properties: { tag: { type: "string" } }, unevaluatedProperties: false },
  },
};

async function compiled() {
  const dir = await tempProject(true); // below the repository, where @mcpgen/runtime/validators resolves
  await writeSchemas(dir, server(tools, { "defs/item.json": item, "defs/owner.json": owner }));
  await build({ cwd: dir, cache: false });
  const load = async (name: string) => (await import(pathToFileURL(path.join(dir, "generated/validators", name)).href)) as Record<string, Validate>;
  return { dir, load };
}

/** How many reads of `value` (property reads, key lists and lookups, at every level) `validate` makes. */
function reads(validate: Validate, value: unknown): number {
  let count = 0;
  const counted = (v: unknown): unknown => {
    if (v === null || typeof v !== "object") return v;
    const target = Array.isArray(v) ? v.map(counted) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, counted(x)]));
    return new Proxy(target, {
      get: (t, k, r) => (count++, Reflect.get(t, k, r)),
      has: (t, k) => (count++, Reflect.has(t, k)),
      ownKeys: (t) => (count++, Reflect.ownKeys(t)),
      getOwnPropertyDescriptor: (t, k) => (count++, Reflect.getOwnPropertyDescriptor(t, k)),
    });
  };
  validate(counted(value));
  return count;
}

describe("shared definitions", () => {
  it("are compiled once, in one module per defs file, which the tools' validators import", async () => {
    const { dir } = await compiled();
    const folder = path.join(dir, "generated/validators");
    expect((await readdir(path.join(folder, "defs"))).sort()).toEqual(["item.gen.d.ts", "item.gen.js", "owner.gen.d.ts", "owner.gen.js"]);
    const shared = await readFile(path.join(folder, "defs/item.gen.js"), "utf8");
    // One function per export; `item$defaults` only because an input reaches it with defaults applied.
    expect(shared).toMatch(/export \{ [^}]*\bas item\b/);
    expect(shared).toMatch(/export \{ [^}]*\bas item\$defaults\b/);
    expect(shared).toMatch(/export \{ [^}]*\bas itemId\b/);
    for (const tool of ["get_item", "put_item", "pick_item"]) {
      const code = await readFile(path.join(folder, `${tool}.gen.js`), "utf8");
      expect(code, tool).toMatch(/^import \{ item(\$defaults|Id)? as shared\d+ \} from "\.\/defs\/item\.gen\.js";$/m);
      // The definition's own checks are not in the tool's module.
      expect(code, tool).not.toContain("^I-[0-9]+$");
      expect(code, tool).not.toContain('"s"');
    }
    const tag = await readFile(path.join(folder, "tag_item.gen.js"), "utf8");
    expect(tag).not.toContain("./defs/");
    // The wire schema is what it was: refs under $defs.
    const wire = await wireTools(dir);
    expect(JSON.stringify(wire.put_item!.inputSchema)).toContain('"$ref":"#/$defs/item"');
  });

  it("accept and refuse what the wire schema compiled whole does, with the same error paths", async () => {
    const { dir, load } = await compiled();
    const wire = await wireTools(dir);
    const reference = addFormats(new Ajv2020({ allErrors: true, strict: false }));
    const values: Record<string, unknown[]> = {
      get_item: [{ id: "I-1" }, { id: "x" }, { id: 5 }, {}],
      put_item: [
        { item: { id: "I-1", name: "a" } },
        { item: { id: "I-1", name: "" } },
        { item: { id: "I-1", name: "a", size: "xl", extra: 1 } },
        { item: { id: "I-1", name: "a", owner: { name: "b", email: "nope" }, parts: [{ id: "I-2", name: "c", tags: ["x", "x"] }] } },
        { item: "no" },
        { item: { id: "I-1", name: "a" }, other: true },
      ],
      pick_item: [{ choice: "s" }, { choice: { id: "I-1", name: "a" } }, { choice: { id: "bad" } }, { choice: 1 }],
      tag_item: [{ name: "a", tag: "t" }, { name: "a", other: 1 }, { tag: "t" }],
    };
    for (const [tool, list] of Object.entries(values)) {
      const { input } = await load(`${tool}.gen.js`);
      const whole = reference.compile(wire[tool]!.inputSchema as object);
      for (const value of list) {
        const [a, b] = [structuredClone(value), structuredClone(value)];
        expect(input!(a), `${tool} ${JSON.stringify(value)}`).toBe(whole(b));
        const paths = (errors: Validate["errors"]) => (errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
        expect(paths(input!.errors), `${tool} ${JSON.stringify(value)}`).toEqual(paths(whole.errors as Validate["errors"]));
      }
    }
    const { output } = await load("put_item.gen.js");
    const whole = reference.compile(wire.put_item!.outputSchema as object);
    const outputs = [
      { items: [] },
      { items: [{ id: "I-1", name: "a" }, { id: "I", name: "b" }] },
      { items: [{ id: "I-1" }] },
      // Valid items around invalid ones, and an invalid one nested in a valid one's parts.
      { items: [{ id: "I-1", name: "a" }, { id: "I-2", name: "b", parts: [{ id: "I-3", name: "c" }, { id: "bad", name: "", owner: {} }] }, { id: 3 }] },
    ];
    for (const value of outputs) {
      expect(output!(structuredClone(value)), JSON.stringify(value)).toBe(whole(structuredClone(value)));
      const paths = (errors: Validate["errors"]) => (errors ?? []).map((e) => `${e.instancePath} ${e.keyword}`).sort();
      expect(paths(output!.errors), JSON.stringify(value)).toEqual(paths(whole.errors as Validate["errors"]));
    }
  });

  it("report a value nested deep through definitions that call each other in two passes, not one per level", async () => {
    // a.json and b.json refer to each other: a chain of n levels is n calls from module to module. A call
    // first runs without the path of its data; only when that fails is it run again with it, and below that
    // every call runs with it: the work is linear in the depth, whatever fails at the bottom.
    const a = { type: "object", additionalProperties: false, properties: { b: { $ref: "b.json" }, n: { type: "integer" } } };
    const b = { type: "object", additionalProperties: false, properties: { a: { $ref: "a.json" } } };
    const tools = Object.fromEntries(["one", "two"].map((name) => [name, { inputSchema: { type: "object", properties: { a: { $ref: "../defs/a.json" } } } }]));
    const dir = await tempProject(true);
    await writeSchemas(dir, server(tools, { "defs/a.json": a, "defs/b.json": b }));
    await build({ cwd: dir, cache: false });
    const { input } = (await import(pathToFileURL(path.join(dir, "generated/validators/one.gen.js")).href)) as Record<string, Validate>;
    expect(await readFile(path.join(dir, "generated/validators/defs/a.gen.js"), "utf8")).toMatch(/from "\.\/b\.gen\.js"/);
    /** The chain n levels deep, ending in `n: leaf`. */
    const chain = (levels: number, leaf: unknown): unknown => {
      let node: Record<string, unknown> = { n: leaf };
      for (let i = 0; i < levels; i++) node = i % 2 ? { b: node } : { a: node };
      return { a: node };
    };
    const cost = (levels: number, leaf: unknown): number => reads(input!, chain(levels, leaf));
    expect(input!(chain(40, 1))).toBe(true);
    expect(input!(chain(40, "x"))).toBe(false);
    expect(input!.errors?.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual([`/a${"/b/a".repeat(20)}/n type`]);
    // Twice as deep, twice the reads (it would be four times with a second pass per level), valid or not.
    for (const leaf of [1, "x"]) expect(cost(200, leaf) / cost(100, leaf)).toBeLessThan(2.5);
    expect(cost(200, "x") / cost(200, 1)).toBeLessThan(2.5);
  });

  it("run a failing branch of a composition once", async () => {
    // get_item's output is a call of the item definition: an invalid item is read twice, once to find it
    // invalid and once for the errors' paths. pick_item's anyOf calls it too, where failing is no error of
    // the whole (another branch may pass): there it is read once.
    const { load } = await compiled();
    const bad = { id: "bad", name: "", parts: [{ id: "I-2", name: "c" }, { id: "I-3" }] };
    const twice = reads((await load("get_item.gen.js")).output!, bad);
    const pick = (await load("pick_item.gen.js")).input!;
    expect(pick({ choice: structuredClone(bad) })).toBe(false);
    expect(reads(pick, { choice: bad }) / twice).toBeLessThan(0.75);
  });

  it("apply defaults through a call for inputs, and none for outputs", async () => {
    const { load } = await compiled();
    const put = await load("put_item.gen.js");
    const input = { item: { id: "I-1", name: "a", owner: { name: "b" }, parts: [{ id: "I-2", name: "c" }] } };
    expect(put.input!(input)).toBe(true);
    expect(input).toEqual({ note: "", item: { id: "I-1", name: "a", size: "m", owner: { name: "b", team: "core" }, parts: [{ id: "I-2", name: "c", size: "m" }] } });
    const output = { items: [{ id: "I-1", name: "a", owner: { name: "b" } }] };
    expect(put.output!(output)).toBe(true);
    expect(output).toEqual({ items: [{ id: "I-1", name: "a", owner: { name: "b" } }] });
    const get = await load("get_item.gen.js");
    const got = { id: "I-1", name: "a" };
    expect(get.output!(got)).toBe(true);
    expect(got).toEqual({ id: "I-1", name: "a" });
    // Inside anyOf ajv applies no default: nor does the call there.
    const pick = await load("pick_item.gen.js");
    const choice = { choice: { id: "I-1", name: "a" } };
    expect(pick.input!(choice)).toBe(true);
    expect(choice).toEqual({ choice: { id: "I-1", name: "a" } });
  });
});

describe("resource template and prompt defaults", () => {
  it("are filled in by their validators", async () => {
    const dir = await tempProject(true);
    await writeSchemas(
      dir,
      server(
        { noop: { inputSchema: { type: "object" } } },
        {
          "resources/page.json": {
            uriTemplate: "pages://{name}{?lang}",
            variables: { name: { schema: { type: "string" } }, lang: { schema: { type: "string", default: "en" } } },
          },
          "prompts/greet.json": {
            arguments: [
              { name: "who", required: true },
              { name: "tone", schema: { enum: ["warm", "dry"], default: "warm" } },
              { name: "times", schema: { type: "integer", default: 1 } },
            ],
          },
        },
      ),
    );
    await build({ cwd: dir, cache: false, client: true });
    const load = async (name: string) => (await import(pathToFileURL(path.join(dir, "generated/validators", name)).href)) as Record<string, Validate>;
    const { variables } = await load("resources/page.gen.js");
    const vars: Record<string, unknown> = { name: "home" };
    expect(variables!(vars)).toBe(true);
    expect(vars).toEqual({ name: "home", lang: "en" });
    const { args } = await load("prompts/greet.gen.js");
    const given: Record<string, unknown> = { who: "Ada", times: "3" };
    expect(args!(given)).toBe(true);
    expect(given).toEqual({ who: "Ada", tone: "warm", times: 3 });
    expect(args!({ tone: "warm" })).toBe(false);

    // The handlers get them filled in, so their types have them; a caller of the typed client may leave them out.
    const types = await readFile(path.join(dir, "generated/types.gen.ts"), "utf8");
    expect(types).toMatch(/export interface PageResourceVariables \{[^}]*\n  lang: string\n/);
    expect(types).toMatch(/export interface GreetPromptArguments \{[^}]*\n  tone: \("warm" \| "dry"\)\n  times: number\n/);
    const client = await readFile(path.join(dir, "generated/client.gen.ts"), "utf8");
    expect(client).toContain('"page"(...call: Args<WithDefaults<T.PageResourceVariables, { "lang": true }>>)');
    expect(client).toContain('"greet"(...call: Args<WithDefaults<T.GreetPromptArguments, { "tone": true, "times": true }>>)');
  });
});
