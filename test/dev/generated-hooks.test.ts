// The loader hooks of `mcpgen dev`'s server children (src/dev/generated-hooks.ts): the generated TypeScript
// compiled by esbuild alone, everything else left to the next hook (tsx's).
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { initialize, load } from "../../dist/dev/generated-hooks.js";
import { tempProject } from "../compiler/helpers.js";

describe("the generated code's loader hooks", () => {
  it("compile a *.gen.ts file of the output folder to JavaScript, its import() calls as they are, and pass on the rest", async () => {
    const dir = await tempProject();
    const out = path.join(dir, "generated");
    await mkdir(out, { recursive: true });
    await mkdir(path.join(dir, "src"), { recursive: true });
    const registry = [
      'import type { Registry } from "@mcpgen/runtime";',
      "const tool: string = '{\"name\":\"echo\"}';",
      'export const registry = { tool, handler: () => import("../src/handlers/echo.js") } satisfies Partial<Registry> as unknown;',
      "",
    ].join("\n");
    await writeFile(path.join(out, "registry.gen.ts"), registry);
    await writeFile(path.join(dir, "src/other.gen.ts"), "export const x: number = 1;\n");
    initialize({ outDir: out });

    const context = { conditions: ["node", "import"], format: undefined, importAssertions: {}, importAttributes: {} };
    const passed: string[] = [];
    const next = async (url: string) => (passed.push(url), { format: "module", source: "next" });
    const own = await load(pathToFileURL(path.join(out, "registry.gen.ts")).href, context, next);
    expect(own).toMatchObject({ format: "module", shortCircuit: true });
    const code = String(own.source);
    expect(code).toContain(`handler: () => import("../src/handlers/echo.js")`);
    expect(code).not.toMatch(/import type|: string|satisfies|\.then\(/);
    const { registry: value } = (await import(`data:text/javascript,${encodeURIComponent(code.replace(/import\("[^"]+"\)/, "Promise.resolve({})"))}`)) as { registry: { tool: string } };
    expect(value.tool).toBe('{"name":"echo"}');

    // Outside the output folder, or not generated TypeScript: the next hook's.
    for (const file of [path.join(dir, "src/other.gen.ts"), path.join(out, "validators/echo.gen.js")]) {
      expect(await load(pathToFileURL(file).href, context, next)).toEqual({ format: "module", source: "next" });
    }
    expect(passed).toHaveLength(2);

    // Named through a link: module URLs are of real paths.
    const link = path.join(dir, "linked");
    await symlink(out, link);
    initialize({ outDir: link });
    expect(await load(pathToFileURL(path.join(out, "registry.gen.ts")).href, context, next)).toMatchObject({ shortCircuit: true });
  });
});
