/**
 * How `mcpgen import openapi` names tools and environment variables (table-driven), and its `--help`.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { envPrefix, toolName } from "../../src/import/openapi.js";

const long = "a".repeat(70);

describe("toolName", () => {
  it.each([
    { given: ["listPets", "get", "/pets", []], want: "listPets" },
    { given: [undefined, "get", "/pets/{petId}", []], want: "get_pets_petId" },
    { given: ["show pet by id!", "get", "/x", []], want: "show_pet_by_id" },
    { given: ["show_pet_by_id", "head", "/x", ["show_pet_by_id"]], want: "show_pet_by_id_2" },
    { given: ["repos/get", "get", "/x", []], want: "repos_get" },
    { given: [long, "get", "/x", []], want: "a".repeat(64) },
    { given: [long, "get", "/x", ["a".repeat(64)]], want: `${"a".repeat(62)}_2` },
    { given: ["ünïcode", "get", "/x", []], want: "n_code" },
  ] as const)("$given.0 ($given.1 $given.2) → $want", ({ given: [id, method, route, taken], want }) => {
    expect(toolName(id, method, route, new Set(taken))).toBe(want);
  });
});

describe("envPrefix", () => {
  it.each([
    ["Pet Store", "PET_STORE"],
    ["GitHub v3 REST API", "GITHUB_V3_REST_API"],
    ["3D printing", "API_3D_PRINTING"],
  ])("%s → %s", (title, want) => expect(envPrefix(title)).toBe(want));
});

describe("mcpgen import openapi --help", () => {
  it("describes the command, its argument and every option", async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [path.resolve(import.meta.dirname, "../../bin/mcpgen.js"), "import", "openapi", "--help"]);
    for (const text of ["OpenAPI 3.0 or 3.1", "<spec>", "--tag <tags...>", "--env-prefix <PREFIX>", "--out <dir>", "--generated <dir>", "--handlers <dir>", "--no-build", "--quiet"])
      expect(stdout).toContain(text);
  }, 30_000);
});
