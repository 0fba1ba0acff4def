// The no-op short cut (src/compiler/stamp.ts): taken only when the input and the output are exactly what
// the last build left. Each test proves the short cut was taken by planting a marker in the stamp's counts
// (a full build reports the real counts), then changes one thing and expects a full build.
import { appendFile, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { build, OutputError } from "mcpgen";
import { buildFixture } from "./helpers.js";

let dir: string;
const cacheDir = () => path.join(dir, "node_modules/.cache/mcpgen");

/** Marks the stamp so that a build served from it reports 999 tools; the fixture has 3. */
async function markStamp(): Promise<void> {
  const [name] = (await readdir(cacheDir())).filter((f) => f.startsWith("stamp-"));
  const file = path.join(cacheDir(), name!);
  const stamp = JSON.parse(await readFile(file, "utf8")) as { counts: { tools: number } };
  stamp.counts.tools = 999;
  await writeFile(file, JSON.stringify(stamp));
}
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
