// `default`s of tool input: the generated input validator fills them in, so the handler receives them,
// and the handler's input type has them present. Output validators fill in nothing.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import type { Registry } from "../../packages/runtime/src/index.js";
import { Harness } from "../runtime/helpers/core.js";
import { server, tempProject, writeSchemas } from "./helpers.js";
import { build } from "mcpgen";

const join = {
  description: "Joins parts.",
  inputSchema: {
    type: "object",
    required: ["parts"],
    additionalProperties: false,
    properties: {
      // Required: the default changes nothing, a value without "parts" is still refused.
      parts: { type: "array", items: { type: "string" }, default: [] },
      sep: { type: "string", default: "," },
      options: { type: "object", properties: { trim: { type: "boolean", default: true }, case: { enum: ["upper", "lower"] } } },
      // Inside anyOf ajv applies no default (strict mode would refuse to compile it): not filled, not typed.
      mode: { anyOf: [{ type: "object", properties: { fast: { type: "boolean", default: false } } }, { type: "string" }] },
    },
  },
  outputSchema: { type: "object", required: ["text"], properties: { text: { type: "string" }, note: { type: "string", default: "none" } } },
};

type Validate = ((value: unknown) => boolean) & { errors?: unknown };

async function compiled() {
  const dir = await tempProject(true); // below the repository, where @mcpgen/runtime/validators resolves
  await writeSchemas(dir, server({ join }));
  await build({ cwd: dir, cache: false });
  const validators = (await import(pathToFileURL(path.join(dir, "generated/validators/join.gen.js")).href)) as { input: Validate; output: Validate };
  return { dir, validators };
}

describe("input defaults", () => {
  it("are filled in by the generated input validator, and reach the handler", async () => {
    const { validators } = await compiled();
    const value: Record<string, unknown> = { parts: ["a", "b"], options: {}, mode: {} };
    expect(validators.input(value)).toBe(true);
    expect(value).toEqual({ parts: ["a", "b"], sep: ",", options: { trim: true }, mode: {} });
    const given = { parts: ["a"], sep: "-" };
    expect(validators.input(given)).toBe(true);
    expect(given.sep).toBe("-");
    expect(validators.input({})).toBe(false);

    // Through the runtime: the handler sees the default.
    let seen: unknown;
    const wire = { name: "join", inputSchema: join.inputSchema };
    const registry = {
      format: 2,
      server: { name: "defaults", version: "1.0.0" },
      tools: [
        {
          name: "join",
          hidden: false,
          wire,
          validators: async () => ({ input: validators.input }),
          handler: async () => ({ default: async (input: { parts: string[]; sep: string }) => ((seen = input), input.parts.join(input.sep)) }),
        },
      ],
    } as unknown as Registry;
    const result = await new Harness({ registry }).result("tools/call", { name: "join", arguments: { parts: ["x", "y"] } });
    expect(seen).toEqual({ parts: ["x", "y"], sep: "," });
    expect(JSON.stringify(result)).toContain('"text":"x,y"');
  });

  it("are not filled in by the output validator", async () => {
    const { validators } = await compiled();
    const value = { text: "t" };
    expect(validators.output(value)).toBe(true);
    expect(value).toEqual({ text: "t" });
  });

  it("make the property present in the handler's input type, and only where they are applied", async () => {
    const { dir } = await compiled();
    const types = await readFile(path.join(dir, "generated/types.gen.ts"), "utf8");
    const input = types.slice(types.indexOf("export interface JoinInput"), types.indexOf("export interface JoinOutput"));
    expect(input).toMatch(/\n  sep: string\n/);
    expect(input).toMatch(/\n    trim: boolean\n/);
    expect(input).toMatch(/\n    fast\?: boolean\n/);
    expect(types.slice(types.indexOf("export interface JoinOutput"))).toMatch(/\n  note\?: string\n/);
  });

  it("keep the wire schema as written", async () => {
    const { dir } = await compiled();
    const registry = await readFile(path.join(dir, "generated/registry.gen.ts"), "utf8");
    expect(registry).toContain('"sep":{"type":"string","default":","}');
  });

  it("are filled in through a $ref to a definition, recursive ones included; the shared definition's type stays as written", async () => {
    const dir = await tempProject(true);
    const options = {
      type: "object",
      properties: { sep: { type: "string", default: "," }, limit: { type: "integer", default: 10 }, next: { $ref: "#" } },
    };
    const tool = {
      description: "Joins with options.",
      inputSchema: { type: "object", properties: { options: { $ref: "../defs/options.json" }, words: { type: "array", items: { type: "string" } } } },
      outputSchema: { type: "object", properties: { used: { $ref: "../defs/options.json" } } },
    };
    await writeSchemas(dir, server({ tool }, { "defs/options.json": options }));
    await build({ cwd: dir, cache: false });
    const validators = (await import(pathToFileURL(path.join(dir, "generated/validators/tool.gen.js")).href)) as { input: Validate; output: Validate };
    const value = { options: { sep: "-", next: { next: {} } } };
    expect(validators.input(value)).toBe(true);
    expect(value).toEqual({ options: { sep: "-", limit: 10, next: { sep: ",", limit: 10, next: { sep: ",", limit: 10 } } } });
    expect(validators.input({ options: { limit: "x" } })).toBe(false);
    const output = { used: { next: {} } };
    expect(validators.output(output)).toBe(true);
    expect(output).toEqual({ used: { next: {} } }); // outputs get no defaults
    const types = await readFile(path.join(dir, "generated/types.gen.ts"), "utf8");
    expect(types).toMatch(/\n  sep\?: string\n/);
  });
});
