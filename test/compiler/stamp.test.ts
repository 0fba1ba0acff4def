// Incremental builds: the no-op short cut (src/compiler/stamp.ts), taken only when the input and the output are exactly what
// the last build left. Each test proves the short cut was taken by planting a marker in the stamp's counts
// (a full build reports the real counts), then changes one thing and expects a full build.
import { appendFile, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { build, DiagnosticError, formatDiagnostic, OutputError } from "mcpgen";
import { buildFixture, readTree, server, tempProject, writeSchemas } from "./helpers.js";

let dir: string;
const cacheDir = () => path.join(dir, "node_modules/.cache/mcpgen");

interface StampFile {
  counts: { tools: number };
  outputs: [file: string, size: number, mtimeMs: number, key: string][];
}
async function editStamp(change: (stamp: StampFile) => void): Promise<void> {
  const [name] = (await readdir(cacheDir())).filter((f) => f.startsWith("stamp-"));
  const file = path.join(cacheDir(), name!);
  const stamp = JSON.parse(await readFile(file, "utf8")) as StampFile;
  change(stamp);
  await writeFile(file, JSON.stringify(stamp));
}
/** Marks the stamp so that a build served from it reports 999 tools; the fixture has 3. */
const markStamp = () => editStamp((stamp) => (stamp.counts.tools = 999));
const rebuild = async (options = {}) => {
  const result = await build({ cwd: dir, cache: true, ...options });
  return { tools: result.counts.tools, updated: result.mode === "write" ? result.updated : [], created: result.mode === "write" ? result.createdHandlers : [] };
};

describe("no-op short cut", () => {
  beforeEach(async () => {
    ({ dir } = await buildFixture("refs", { cache: true }));
    await markStamp();
  });

  it("is taken when nothing changed, and leaves everything as it was", async () => {
    expect(await rebuild()).toEqual({ tools: 999, updated: [], created: [] });
  });

  it("is not taken after a schema changes", async () => {
    const file = path.join(dir, "schemas/tools/pay.json");
    const tool = JSON.parse(await readFile(file, "utf8")) as { description?: string };
    await writeFile(file, JSON.stringify({ ...tool, description: "Pays, now described differently." }));
    const result = await rebuild();
    expect(result.tools).toBe(3);
    expect(result.updated).toContain("generated/registry.gen.ts");
  });

  it("is not taken when a generated file was edited, touched, added or removed", async () => {
    const registry = path.join(dir, "generated/registry.gen.ts");
    const original = await readFile(registry, "utf8");
    await appendFile(registry, "// local change\n");
    expect(await rebuild()).toEqual({ tools: 3, updated: ["generated/registry.gen.ts"], created: [] });
    expect(await readFile(registry, "utf8")).toBe(original);

    await markStamp();
    await utimes(registry, new Date(), new Date(Date.now() - 60_000)); // same bytes, other mtime
    expect((await rebuild()).tools).toBe(3);

    await markStamp();
    await rm(path.join(dir, "generated/types.gen.ts"));
    expect(await rebuild()).toMatchObject({ tools: 3, updated: ["generated/types.gen.ts"] });

    await markStamp();
    await writeFile(path.join(dir, "generated/notes.txt"), "mine");
    await expect(rebuild()).rejects.toThrow(OutputError);
  });

  it("is not taken when a handler file is missing, which is created again", async () => {
    await rm(path.join(dir, "src/handlers/pay.ts"));
    expect(await rebuild()).toEqual({ tools: 3, updated: [], created: ["src/handlers/pay.ts"] });
  });

  it("is not taken for another output folder, --check or --no-cache", async () => {
    expect((await rebuild({ out: "elsewhere" })).tools).toBe(3);
    const checked = await build({ cwd: dir, cache: true, check: true });
    expect(checked.counts.tools).toBe(3);
    expect((await rebuild({ cache: false })).tools).toBe(3);
    expect((await rebuild()).tools).toBe(999); // the first folder's stamp is still there
  });
});

describe("files untouched since the last build", () => {
  beforeEach(async () => {
    ({ dir } = await buildFixture("refs", { cache: true }));
  });
  const editPay = async (change: (tool: { description?: string; inputSchema: { properties: Record<string, unknown> } }) => void) => {
    const file = path.join(dir, "schemas/tools/pay.json");
    const tool = JSON.parse(await readFile(file, "utf8")) as Parameters<typeof change>[0];
    change(tool);
    await writeFile(file, JSON.stringify(tool));
  };

  it("are kept without being read or rendered when their size, mtime and key are the same", async () => {
    // Other bytes planted, and the stamp told they are what the last build left: a build that trusts the
    // stamp neither reads nor rewrites them (a real edit changes the mtime, see the tests above).
    const ship = path.join(dir, "generated/validators/ship.gen.js");
    const planted = (await readFile(ship, "utf8")).replace("// Generated by mcpgen", "// GENERATED BY MCPGEN");
    await writeFile(ship, planted);
    const { mtimeMs } = await stat(ship);
    await editStamp((stamp) => (stamp.outputs.find(([file]) => file === "validators/ship.gen.js")![2] = mtimeMs));
    await editPay((tool) => (tool.description = "Pays, now described differently."));
    expect((await rebuild()).updated).toEqual(["generated/handlers.gen.ts", "generated/registry.gen.ts"]);
    expect(await readFile(ship, "utf8")).toBe(planted);
  });

  it("leave the output the same as a build from scratch, and their cache entries in the cache", async () => {
    const packEntries = async () =>
      (JSON.parse((await readFile(path.join(cacheDir(), "pack"), "utf8")).split("\n", 1)[0]!) as { entries: unknown[] }).entries.length;
    const before = await packEntries();
    await editPay((tool) => (tool.inputSchema.properties.memo = { type: "string", maxLength: 140 }));
    const { updated } = await rebuild();
    // pay's validator module and input type are new, their old entries gone; ship's and plant's are kept.
    expect(await packEntries()).toBe(before);
    expect(updated).toEqual(expect.arrayContaining(["generated/validators/pay.gen.js", "generated/types.gen.ts"]));
    expect(updated).not.toContain("generated/validators/ship.gen.js");
    const incremental = await readTree(path.join(dir, "generated"));
    await rm(path.join(dir, "generated"), { recursive: true });
    await build({ cwd: dir, cache: false });
    expect(incremental).toEqual(await readTree(path.join(dir, "generated")));
  });

  it("leave the output the same as a build from scratch when an edit renames shared types of other tools", async () => {
    // geo.json's countryCode is reached by nobody at first; once pay refers to it, it and common.json's
    // countryCode (which ship reaches through address.json) both want the name CountryCode, and both fall
    // back to the longer names: an edit of pay changes the types of ship.
    await writeFile(path.join(dir, "schemas/defs/geo.json"), JSON.stringify({ $defs: { countryCode: { type: "string", minLength: 2 } } }));
    await rebuild();
    const fromScratch = async () => {
      const incremental = await readTree(path.join(dir, "generated"));
      await rm(path.join(dir, "generated"), { recursive: true });
      await build({ cwd: dir, cache: false });
      expect(incremental).toEqual(await readTree(path.join(dir, "generated")));
      return incremental.get("types.gen.ts")!;
    };
    expect(await fromScratch()).toContain("export type CountryCode = string");
    await rebuild(); // the output folder is the scratch build's: the stamp no longer holds, the cache does

    await editPay((tool) => (tool.inputSchema.properties.origin = { $ref: "../defs/geo.json#/$defs/countryCode" }));
    expect((await rebuild()).updated).toContain("generated/types.gen.ts");
    const renamed = await fromScratch();
    expect(renamed).toContain("export type CommonCountryCode = string");
    expect(renamed).toContain("export type GeoCountryCode = string");
    expect(renamed).not.toContain("export type CountryCode =");
    await rebuild();

    await editPay((tool) => delete tool.inputSchema.properties.origin);
    await rebuild();
    expect(await fromScratch()).toContain("export type CountryCode = string");
  });
});

describe("tool files that passed their own checks before", () => {
  beforeEach(async () => {
    ({ dir } = await buildFixture("refs", { cache: true }));
  });

  it("are not checked again, but the rules across files still run on them", async () => {
    // A copy of pay.json under another file name, claiming pay's name: each file is fine on its own.
    const pay = JSON.parse(await readFile(path.join(dir, "schemas/tools/pay.json"), "utf8")) as Record<string, unknown>;
    await writeFile(path.join(dir, "schemas/tools/pay-again.json"), JSON.stringify({ ...pay, name: "pay" }));
    await expect(rebuild()).rejects.toThrow(`duplicate tool name "pay"`);
  });

  it("are checked again when their content changes", async () => {
    const file = path.join(dir, "schemas/tools/ship.json");
    const ship = JSON.parse(await readFile(file, "utf8")) as { inputSchema: Record<string, unknown> };
    await writeFile(file, JSON.stringify({ ...ship, inputSchema: { ...ship.inputSchema, reqired: ["x"] } }));
    await expect(rebuild()).rejects.toThrow('unknown keyword "reqired"');
    await writeFile(file, JSON.stringify(ship)); // back as it was: remembered, and fine
    expect((await rebuild()).tools).toBe(3);
  });

  it("include defs files, checked again when their content changes, and again while they warn", async () => {
    const file = path.join(dir, "schemas/defs/common.json");
    const common = JSON.parse(await readFile(file, "utf8")) as { $defs: Record<string, Record<string, unknown>> };
    const tag = common.$defs.tag!;
    await writeFile(file, JSON.stringify({ $defs: { ...common.$defs, tag: { ...tag, minLenght: 1 } } }));
    await expect(rebuild()).rejects.toThrow('unknown keyword "minLenght"');
    await writeFile(file, JSON.stringify({ $defs: { ...common.$defs, tag: { ...tag, format: "shade" } } }));
    const warned = async () => (await build({ cwd: dir, cache: true })).warnings.map((w) => w.message);
    expect(await warned()).toContain('unknown format "shade": kept as an annotation, not validated');
    await writeFile(path.join(dir, "generated/server.gen.ts"), "// Generated by mcpgen, touched\n"); // no short cut
    expect(await warned()).toContain('unknown format "shade": kept as an annotation, not validated');
  });
});

describe("a large build", () => {
  /** 240 tools (more validators and type units than the threshold of parallel.ts), made by `tool`, and a defs file they may refer to. */
  const largeServer = (tool: (i: number) => unknown) =>
    server(Object.fromEntries(Array.from({ length: 240 }, (_, i) => [`tool_${String(i).padStart(3, "0")}`, tool(i)])), {
      "defs/common.json": { $defs: { tag: { type: "string", minLength: 1 } } },
    });

  it("gives the same bytes with its type units on a thread of their own (the default on 2 CPUs or more) as on one thread", async () => {
    // Each tool with a definition of its own (a unit named after the tool) and a ref into the shared defs file.
    const tool = (i: number) => ({
      description: `Tool ${i}.`,
      inputSchema: {
        type: "object",
        properties: { q: { type: "string", maxLength: i + 1 }, item: { $ref: "#/$defs/item" }, tag: { $ref: "../defs/common.json#/$defs/tag" } },
        $defs: { item: { type: "object", properties: { n: { type: "integer", minimum: i } } } },
      },
      outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    });
    const files = largeServer(tool);
    const outputs: Map<string, string>[] = [];
    for (const jobs of [undefined, 1]) {
      const project = await tempProject();
      await writeSchemas(project, files);
      await build({ cwd: project, cache: false, ...(jobs && { jobs }) });
      outputs.push(await readTree(path.join(project, "generated")));
    }
    expect(outputs[0]!.get("types.gen.ts")).toContain("export interface Tool239InputItem");
    expect(outputs[0]).toEqual(outputs[1]);
  });

  it("checks examples on the types thread and on the main thread as on one thread, and caches no module whose examples fail", async () => {
    // Each tool with a definition of its own (a type unit). The even ones call a shared definition, so
    // the main thread checks their examples (a call's target compiles from the tool's schema there); the
    // examples of the odd ones, whose modules import the runtime alone, go to the types thread.
    // Examples that fail: one through a shared definition (tool 8), the others in modules of odd tools.
    const fails = { tag: 8, item: [7, 233], output: 121 };
    const tool = (i: number) => ({
      description: `Tool ${i}.`,
      inputSchema: {
        type: "object",
        required: ["item"],
        properties: { item: { $ref: "#/$defs/item" }, ...(i % 2 === 0 && { tag: { $ref: "../defs/common.json#/$defs/tag" } }) },
        $defs: { item: { type: "object", properties: { n: { type: "integer", minimum: i } } } },
      },
      outputSchema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } },
      examples: [
        { input: { item: { n: i }, ...(i % 2 === 0 && { tag: i === fails.tag ? "" : "t" }) }, output: { ok: true } },
        { input: { item: { n: fails.item.includes(i) ? i - 1 : i + 1 } }, output: { ok: i === fails.output ? "yes" : false } },
      ],
    });
    const files = largeServer(tool);
    const diagnostics = async (project: string, options: { cache: boolean; jobs?: number }) => {
      const error = await build({ cwd: project, ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(DiagnosticError);
      return (error as DiagnosticError).diagnostics.map(formatDiagnostic);
    };
    const project = await tempProject();
    await writeSchemas(project, files);
    const want = [
      "schemas/tools/tool_007.json#/examples/1/input: example does not match the inputSchema: /item/n must be >= 7",
      "schemas/tools/tool_008.json#/examples/0/input: example does not match the inputSchema: /tag must NOT have fewer than 1 characters",
      "schemas/tools/tool_121.json#/examples/1/output: example does not match the outputSchema: /ok must be boolean",
      "schemas/tools/tool_233.json#/examples/1/input: example does not match the inputSchema: /item/n must be >= 233",
    ];
    expect(await diagnostics(project, { cache: false, jobs: 1 })).toEqual(want);
    expect(await diagnostics(project, { cache: true })).toEqual(want);
    // The modules whose examples passed are in the cache now; those whose examples failed are not.
    expect(await diagnostics(project, { cache: true })).toEqual(want);
  });
});

