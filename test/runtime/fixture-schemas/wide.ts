/**
 * The "wide" fixture server: more tools than fit the page size clients used to get by default (100),
 * 150 tools each answering with its own name. Written as a schemas folder plus handlers, then built by
 * mcpgen like any server (see test/global-setup.ts), so its registry and validators are real generated code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

export const WIDE_TOOL_COUNT = 150;

/** Writes `<dir>/schemas` and `<dir>/handlers`. */
export function writeWideFixture(dir: string): void {
  mkdirSync(path.join(dir, "schemas/tools"), { recursive: true });
  mkdirSync(path.join(dir, "handlers"), { recursive: true });
  writeFileSync(path.join(dir, "schemas/server.json"), JSON.stringify({ name: "wide", version: "1.0.0" }, null, 2));
  writeFileSync(path.join(dir, "schemas/annotations.json"), JSON.stringify({ requireHints: false, tools: {} }, null, 2));
  for (let i = 0; i < WIDE_TOOL_COUNT; i++) {
    const name = `tool_${String(i).padStart(3, "0")}`;
    const schema = { description: `Tool number ${i}.`, inputSchema: { type: "object", properties: {}, additionalProperties: false } };
    writeFileSync(path.join(dir, `schemas/tools/${name}.json`), JSON.stringify(schema, null, 2));
    writeFileSync(path.join(dir, `handlers/${name}.ts`), `const handler = async (): Promise<string> => ${JSON.stringify(name)};\n\nexport default handler;\n`);
  }
}
