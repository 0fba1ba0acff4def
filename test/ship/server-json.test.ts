/**
 * `mcpgen server-json`: the MCP Registry's server.json. No npm package publishes the registry's JSON
 * Schema, so the rules are asserted one by one, each citing where the registry states it:
 * [schema] docs/reference/server-json/server.schema.json (2025-12-11) and
 * [validators] internal/validators/validators.go of modelcontextprotocol/registry, and
 * [npm] internal/validators/registries/npm.go (the ownership check against the package's mcpName).
 */
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { server, tempProject, writeSchemas } from "../compiler/helpers.js";
import { EXAMPLE_SCHEMAS, examplePackage, mcpgen, writeJson } from "./helpers.js";

/** The top-level fields of ServerDetail [schema]. */
const SERVER_FIELDS = ["$schema", "name", "title", "description", "version", "websiteUrl", "repository", "icons", "packages", "remotes", "_meta"];
/** The fields of Package and of KeyValueInput (Input + name + variables) [schema]. */
const PACKAGE_FIELDS = ["registryType", "registryBaseUrl", "identifier", "version", "fileSha256", "runtimeHint", "transport", "runtimeArguments", "packageArguments", "environmentVariables"];
const ENV_FIELDS = ["name", "description", "isRequired", "format", "value", "isSecret", "default", "placeholder", "choices", "variables"];

async function project(pkg: Record<string, unknown>, schemas?: Record<string, unknown>): Promise<string> {
  const dir = await tempProject();
  await writeJson(path.join(dir, "package.json"), pkg);
  if (schemas) await writeSchemas(dir, schemas);
  return dir;
}

describe("mcpgen server-json", () => {
  it("writes a server.json that follows every rule of the registry's 2025-12-11 format", async () => {
    const pkg = examplePackage();
    const dir = await project(pkg);
    const result = await mcpgen(dir, "server-json", EXAMPLE_SCHEMAS);
    expect(result).toMatchObject({ code: 0, stdout: "" });
    expect(result.stderr).toMatch(/^mcpgen: io\.github\.acme\/tasks 1\.0\.0 → server\.json \(npm package @acme\/tasks-mcp; \d+\.\d\d s\)\n$/);
    const doc = JSON.parse(await readFile(path.join(dir, "server.json"), "utf8"));

    // [schema] $schema names the format's version.
    expect(doc.$schema).toBe("https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
    // [schema] required: name, description, version; nothing outside ServerDetail's properties.
    for (const field of ["name", "description", "version"]) expect(doc).toHaveProperty(field);
    expect(Object.keys(doc).filter((k) => !SERVER_FIELDS.includes(k))).toEqual([]);
    // [schema] name: 3–200 characters, pattern ^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$; [validators] exactly one
    // slash, each part starting and ending with a letter or digit.
    expect(doc.name).toBe("io.github.acme/tasks");
    expect(doc.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(doc.name).toMatch(/^[a-zA-Z0-9][a-zA-Z0-9.-]*[a-zA-Z0-9]\/[a-zA-Z0-9][a-zA-Z0-9._-]*[a-zA-Z0-9]$/);
    // [npm] the npm package's mcpName must equal name.
    expect(pkg.mcpName).toBe(doc.name);
    // [schema] description: 1–100 characters; title: 1–100 characters, [validators] not only spaces.
    expect(doc.description).toBe("A small task tracker: list, read, create, update and delete tasks, plus a page-title fetcher.");
    expect([...doc.description].length).toBeLessThanOrEqual(100);
    expect(doc.title).toBe("Tasks (mcpgen example)");
    expect(doc.title.trim().length).toBeGreaterThan(0);
    // [schema] version ≤ 255 characters; [validators] not "latest" and no range.
    expect(doc.version).toBe("1.0.0");
    // [validators] websiteUrl absolute and https.
    expect(new URL(doc.websiteUrl).protocol).toBe("https:");
    // [schema] repository requires url and source; [validators] a GitHub URL for source "github".
    expect(doc.repository).toEqual({ url: "https://github.com/acme/tasks-mcp", source: "github" });
    expect(doc.repository.url).toMatch(/^https?:\/\/(www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/);
    // [schema] Package: registryType, identifier and transport required; npm packages carry an exact version.
    expect(doc.packages).toHaveLength(1);
    const [entry] = doc.packages;
    expect(Object.keys(entry).filter((k) => !PACKAGE_FIELDS.includes(k))).toEqual([]);
    expect(entry).toMatchObject({ registryType: "npm", identifier: "@acme/tasks-mcp", version: "1.0.0", transport: { type: "stdio" } });
    // [validators] a stdio transport has no url; the identifier has no spaces; the version is no range.
    expect(entry.transport).toEqual({ type: "stdio" });
    expect(entry.identifier).not.toMatch(/ /);
    expect(entry.version).toBe(pkg.version);
    // [schema] environmentVariables: KeyValueInput (name required, format one of four, default a string).
    expect(entry.environmentVariables).toEqual([
      { name: "TASKS_API_KEY", description: "Key for the task service.", isRequired: true, isSecret: true, format: "string" },
      { name: "TASKS_PAGE", description: "Largest page of tasks.", format: "number", default: "20" },
      { name: "TASKS_DIR", description: "Where tasks are kept.", format: "filepath" },
    ]);
    for (const env of entry.environmentVariables) {
      expect(Object.keys(env).filter((k) => !ENV_FIELDS.includes(k))).toEqual([]);
      expect(["string", "number", "boolean", "filepath"]).toContain(env.format);
    }
    // [validators] publisher-provided _meta stays under 4 KB.
    expect(doc._meta).toEqual({ "io.modelcontextprotocol.registry/publisher-provided": { tool: "mcpgen", version: expect.stringMatching(/^\d+\.\d+\.\d+/) } });
    expect(JSON.stringify(doc._meta["io.modelcontextprotocol.registry/publisher-provided"]).length).toBeLessThan(4096);
  });

  it.each([
    ["no mcpName", { mcpName: undefined }, ['package.json#/mcpName: missing: the MCP Registry name of the server, e.g. "io.github.<owner>/<name>"; the registry checks that the published npm package carries it']],
    ["two slashes", { mcpName: "io.github.acme/tasks/extra" }, ['package.json#/mcpName: "io.github.acme/tasks/extra" must be a namespace and a name separated by exactly one "/", e.g. "io.github.<owner>/<name>"']],
    ["a namespace ending in a dot", { mcpName: "io.github./tasks" }, ['package.json#/mcpName: the namespace "io.github." must be reverse-DNS: letters, digits, "." and "-", starting and ending with a letter or digit']],
    ["a version range", { version: "^1.0.0" }, ['package.json#/version: "^1.0.0" is not an exact version such as 1.2.3: the MCP Registry rejects "latest" and ranges (^, ~, >=, x, *, ||, a - b)']],
    ["a wildcard version", { version: "1.x" }, ['package.json#/version: "1.x" is not an exact version such as 1.2.3: the MCP Registry rejects "latest" and ranges (^, ~, >=, x, *, ||, a - b)']],
    ["latest", { version: "latest" }, ['package.json#/version: "latest" is not an exact version such as 1.2.3: the MCP Registry rejects "latest" and ranges (^, ~, >=, x, *, ||, a - b)']],
  ])("rejects %s in package.json: file#/pointer, exit 1, nothing written", async (_, change, want) => {
    const dir = await project({ ...examplePackage(), ...change });
    const result = await mcpgen(dir, "server-json", EXAMPLE_SCHEMAS);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe([...want, `mcpgen: ${want.length} problem${want.length === 1 ? "" : "s"}; nothing was written`, ""].join("\n"));
    expect(await readdir(dir)).toEqual(["package.json"]);
  });

  it("points at schemas/server.json for its description, website and icons, all at once", async () => {
    const long = "A server whose description goes on and on, well past what the registry shows in a list of servers on one line.";
    const dir = await project(
      examplePackage({ description: undefined }),
      server(
        { search: { description: "Searches.", inputSchema: { type: "object" } } },
        {
          "server.json": {
            name: "test",
            version: "1.0.0",
            description: long,
            websiteUrl: "http://example.com",
            icons: [{ src: "data:image/png;base64,AAAA", sizes: ["48"] }],
          },
        },
      ),
    );
    const result = await mcpgen(dir, "server-json");
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")).toEqual([
      `schemas/server.json#/description: is ${[...long].length} characters long; the MCP Registry accepts at most 100`,
      "schemas/server.json#/icons/0/sizes/0: must be \"<width>x<height>\" or \"any\"",
      "schemas/server.json#/icons/0/src: the MCP Registry accepts only absolute https icon URLs (no http: or data: URIs)",
      'schemas/server.json#/websiteUrl: "http://example.com" must be an absolute https URL for the MCP Registry',
      "mcpgen: 4 problems; nothing was written",
      "",
    ]);
    expect((await readdir(dir)).sort()).toEqual(["package.json", "schemas"]);
  });

  it("replaces its own server.json, never one it did not write, and notes what the entry leaves out", async () => {
    const dir = await project(examplePackage({ private: true, repository: "https://bitbucket.org/acme/tasks", version: "1.1.0" }));
    const first = await mcpgen(dir, "server-json", EXAMPLE_SCHEMAS, "--out", "dist/server.json");
    expect(first.code).toBe(0);
    expect(first.stderr.split("\n").slice(1)).toEqual([
      "  note: repository https://bitbucket.org/acme/tasks left out: the MCP Registry accepts only GitHub and GitLab repositories",
      "  note: package.json says private: npm will refuse to publish the package this entry points to",
      "  note: schemas/server.json has version 1.0.0, package.json 1.1.0: the entry uses package.json's",
      "",
    ]);
    const written = JSON.parse(await readFile(path.join(dir, "dist/server.json"), "utf8"));
    expect(written.repository).toBeUndefined();
    expect(written.version).toBe("1.1.0");
    expect((await mcpgen(dir, "server-json", EXAMPLE_SCHEMAS, "--out", "dist/server.json", "--quiet"))).toMatchObject({ code: 0, stderr: "" });

    const handWritten = '{ "name": "io.github.acme/tasks", "description": "mine" }\n';
    await writeFile(path.join(dir, "server.json"), handWritten);
    const refused = await mcpgen(dir, "server-json", EXAMPLE_SCHEMAS);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("mcpgen: server.json exists and was not written by mcpgen; nothing was written (move it away or choose another file with --out)\n");
    expect(await readFile(path.join(dir, "server.json"), "utf8")).toBe(handWritten);
  });
});
