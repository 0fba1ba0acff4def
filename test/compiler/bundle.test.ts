// The bundle (scripts/bundle.mjs, dist/bundle/) is what bin/mcpgen.js and the `mcpgen` entry run; the modules
// it is made from stay in dist/. Both must make the same bytes, and the digests written beside the bundle,
// which the compile cache's fingerprint and the code digest read, must be those of the files they cover.
import { createHash } from "node:crypto";
import { cp, readdir, readFile } from "node:fs/promises";
import { readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { build as bundled } from "mcpgen";
import { build as unbundled } from "../../dist/compiler/index.js";
import { compilerFilesDigest } from "../../dist/compiler/stamp.js";
import { FIXTURES, readTree, REPO, tempProject } from "./helpers.js";

const features = readdirSync(FIXTURES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

async function output(build: typeof bundled, feature: string, jobs?: number): Promise<Map<string, string>> {
  const dir = await tempProject();
  await cp(path.join(FIXTURES, feature, "schemas"), path.join(dir, "schemas"), { recursive: true });
  await build({ cwd: dir, cache: false, ...(jobs && { jobs }) });
  return new Map([...(await readTree(path.join(dir, "generated"))), ...[...(await readTree(path.join(dir, "src/handlers")))].map(([f, c]) => [`handlers/${f}`, c] as const)]);
}

/** The packages whose files the bundle's code was made from (its source maps' sources under node_modules/). */
async function bundledPackages(): Promise<Set<string>> {
  const packages = new Set<string>();
  for (const file of (await readdir(path.join(REPO, "dist/bundle"))).filter((f) => f.endsWith(".js"))) {
    const map = JSON.parse(await readFile(path.join(REPO, "dist/bundle", `${file}.map`), "utf8")) as { sources: string[] };
    for (const source of map.sources) {
      const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(source);
      if (inPackage) packages.add(inPackage[1] as string);
    }
  }
  return packages;
}

describe("the bundle", () => {
  it.each(features)("builds fixture %s to the bytes the modules in dist/ build", async (feature) => {
    expect(await output(bundled, feature)).toEqual(await output(unbundled, feature));
  });

  it("and the modules in dist/ build the same bytes on compile threads of their own", async () => {
    expect(await output(unbundled, "refs", 2)).toEqual(await output(bundled, "refs", 2));
  });

  it("ships the license of every package it took in", async () => {
    const notices = await readFile(path.join(REPO, "dist/bundle/licenses.txt"), "utf8");
    const named = [...notices.matchAll(/^((?:@[^/\s]+\/)?[^@\s]+)@\d[^\s]* \(/gm)].map((m) => m[1]);
    for (const name of ["ajv", "ajv-formats", "commander", "handlebars", "json-schema-to-typescript", "yaml"]) expect(named).toContain(name);
    expect([...(await bundledPackages())].filter((name) => !named.includes(name))).toEqual([]);
  });

  it("has the digest of its files in code.sha256", async () => {
    const dir = path.join(REPO, "dist/bundle");
    const hash = createHash("sha256");
    for (const file of (await readdir(dir)).filter((f) => f.endsWith(".js")).sort()) hash.update(`${file}\0`).update(await readFile(path.join(dir, file)));
    expect(await readFile(path.join(dir, "code.sha256"), "utf8")).toBe(`${hash.digest("hex")}\n`);
  });

  it("has the digest of dist/compiler/ and the templates in compiler.sha256, as a build would make it", async () => {
    expect(await readFile(path.join(REPO, "dist/bundle/compiler.sha256"), "utf8")).toBe(`${compilerFilesDigest()}\n`);
  });

  // Each would cost every process that compiles a type its loading time (js-yaml ~5 ms, json-schema-ref-parser
  // ~20 ms, prettier ~30 ms); emit/jstt.cts and scripts/bundle.mjs put stand-ins in their place.
  const UNUSED = ["js-yaml", "@apidevtools/json-schema-ref-parser", "prettier"];

  it("leaves out what json-schema-to-typescript loads but mcpgen's calls never use", async () => {
    const taken = await bundledPackages();
    expect(taken).toContain("json-schema-to-typescript");
    for (const name of UNUSED) expect(taken).not.toContain(name);
  });

  it("and so does the compiler in dist/, whose stand-ins leave Node's module cache to the real modules", () => {
    // In a process of its own: this one's loader may have loaded json-schema-to-typescript its own way.
    const script = `
      const { createRequire } = require("node:module");
      const loadJstt = require(${JSON.stringify(path.join(REPO, "dist/compiler/emit/jstt.cjs"))});
      const compiles = typeof loadJstt(() => true).index.compile === "function";
      const fromJstt = createRequire(require.resolve("json-schema-to-typescript", { paths: [${JSON.stringify(REPO)}] }));
      const loaded = ${JSON.stringify(UNUSED)}.filter((name) => require.cache[fromJstt.resolve(name)] !== undefined);
      const yaml = fromJstt("js-yaml").load("a: [1, 2]");
      process.stdout.write(JSON.stringify({ compiles, loaded, yaml }));`;
    expect(JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }))).toEqual({ compiles: true, loaded: [], yaml: { a: [1, 2] } });
  });

  it("loads child_process only when a command uses it (commander requires it when it loads)", () => {
    const script = `import(${JSON.stringify(path.join(REPO, "dist/bundle/cli.js"))}).then(() => process.stdout.write(JSON.stringify(process.moduleLoadList.filter((m) => m.includes("child_process")))));`;
    expect(JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }))).toEqual([]);
  });
});
