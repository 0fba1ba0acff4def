// The shipping commands in `mcpgen --help`, each with every option.
import { describe, expect, it } from "vitest";
import { REPO } from "../compiler/helpers.js";
import { mcpgen } from "./helpers.js";

describe("mcpgen --help", () => {
  it("lists bundle and server-json with every option", async () => {
    const top = await mcpgen(REPO, "--help");
    expect(top.stdout).toMatch(/bundle \[options\] \[schemas\]/);
    expect(top.stdout).toMatch(/server-json \[options\] \[schemas\]/);
    const bundle = await mcpgen(REPO, "bundle", "--help");
    expect(bundle.code).toBe(0);
    for (const flag of ["--entry <file>", "--package <file>", "--out <file>", "--icon <png>", "--quiet"]) expect(bundle.stdout).toContain(flag);
    expect(bundle.stdout.replace(/\s+/g, " ")).toContain("(default: the package's bin, else build/generated/server.gen.js)");
    const serverJson = await mcpgen(REPO, "server-json", "--help");
    for (const flag of ["--package <file>", "--out <file>", "--quiet"]) expect(serverJson.stdout).toContain(flag);
    expect(serverJson.stdout).toContain('(default: "server.json")');
    expect((await mcpgen(REPO, "bundle", "--frobnicate")).code).toBe(2);
  });
});
