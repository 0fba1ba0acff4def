/**
 * `mcpgen import openapi` on a large real description: GitHub's REST API as published in the pinned
 * @octokit/openapi package. The `issues` operations (58 tools, all 969 shared schemas as defs) are
 * imported and built, the output type-checks, and the generated `issues_get-label` handler calls a loopback
 * server (base URL from GITHUB_BASE_URL) and returns its JSON as the structured result. The whole
 * description (1,223 operations) also imports and builds (see BENCHMARKS.md), but TypeScript refuses
 * the registry of that many tools ("union type that is too complex", TS2590), so the type-checked
 * part is one tag.
 */
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compile, fakeApi, freshDir, importOpenApi, ROOT, withServer, workOf } from "./openapi-run.js";

const SPEC = path.join(ROOT, "node_modules/@octokit/openapi/generated/api.github.com.json");

const WORK = workOf(import.meta.filename);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe("mcpgen import openapi: GitHub's REST description", () => {
  it("imports the issues operations, builds, type-checks, and a handler calls the API", async () => {
    const dir = freshDir(WORK, "github");
    const ran = await importOpenApi(dir, [SPEC, "--tag", "issues", "--env-prefix", "GITHUB", "-o", "schemas", "-g", "generated", "-H", "handlers"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/imported GitHub.*: 58 tools, 0 resources, 0 resource templates, 0 prompts, 969 defs/);
    expect(ran.stderr).toContain("GITHUB_BASE_URL: Base URL of the API");
    expect(readdirSync(path.join(dir, "handlers")).filter((f) => f.endsWith(".ts"))).toHaveLength(59); // 58 tools and the client

    await compile(dir);
    // A label as GitHub's `label` schema describes it (the server checks structured results against the output schema).
    const label = { id: 208045946, node_id: "MDU6TGFiZWwyMDgwNDU5NDY=", url: "https://api.github.com/repos/octo/hello/labels/bug", name: "bug", description: null, color: "d73a4a", default: true };
    const api = await fakeApi((request) => (request.url === "/repos/octo/hello/labels/bug%20fix" ? { status: 200, json: label } : { status: 404, json: { message: "Not Found" } }));
    try {
      await withServer(dir, { GITHUB_BASE_URL: api.url }, async (client) => {
        const tools = (await client.listTools()).tools;
        expect(tools).toHaveLength(58);
        expect(tools.find((t) => t.name === "issues_get-label")?.annotations).toMatchObject({ readOnlyHint: true });
        const got = await client.callTool({ name: "issues_get-label", arguments: { owner: "octo", repo: "hello", name: "bug fix" } });
        expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
        expect(got.structuredContent).toEqual(label);
        expect(api.requests).toHaveLength(1);
        expect(api.requests[0]).toMatchObject({ method: "GET", url: "/repos/octo/hello/labels/bug%20fix" });
        const missing = await client.callTool({ name: "issues_get-label", arguments: { owner: "octo", repo: "hello", name: "nope" } });
        expect(missing.isError).toBe(true);
        expect(JSON.stringify(missing.content)).toContain("answered 404 Not Found");
      });
    } finally {
      await api.close();
    }
  }, 120_000);
});
