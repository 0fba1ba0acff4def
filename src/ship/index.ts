/**
 * Distribution formats of a built server: the MCP Bundle (`bundle.ts`) and the MCP Registry's
 * server.json (`server-json.ts`). Both read the same project (`project.ts`) and report problems as
 * `file#/pointer: message` diagnostics before writing anything.
 */
import path from "node:path";
import { DiagnosticError } from "../compiler/diagnostics.js";
import { display, resolveShipConfig, SHIP_DEFAULTS, type ShipConfig, type ShipOptions } from "./config.js";
import { writeOwned } from "./output.js";
import { readProject } from "./project.js";
import { serverJson, writtenByMcpgen, type RegistryServerJson } from "./server-json.js";

export { bundle, type BundleResult } from "./bundle.js";
export { SHIP_DEFAULTS, resolveShipConfig, type ShipConfig, type ShipOptions } from "./config.js";
export { SERVER_JSON_SCHEMA, type RegistryServerJson } from "./server-json.js";
export type { McpbManifest } from "./mcpb.js";

export interface ServerJsonResult {
  config: ShipConfig;
  file: string;
  doc: RegistryServerJson;
  /** Things worth knowing that do not stop the file from being written. */
  notes: string[];
}

/** `mcpgen server-json`: writes the MCP Registry's server.json. Throws `DiagnosticError` before writing. */
export async function writeServerJson(options: ShipOptions = {}, mcpgenVersion = ""): Promise<ServerJsonResult> {
  const config = resolveShipConfig(options);
  const { project, diagnostics } = await readProject(config);
  const made = project ? serverJson(project, mcpgenVersion) : undefined;
  if (made) diagnostics.push(...made.diagnostics);
  if (diagnostics.length || !made?.doc) throw new DiagnosticError(diagnostics);
  const file = config.outFile ?? path.join(config.cwd, SHIP_DEFAULTS.serverJson);
  await writeOwned(file, display(config, file), JSON.stringify(made.doc, null, 2) + "\n", (existing) => writtenByMcpgen(existing.toString("utf8")));
  return { config, file, doc: made.doc, notes: made.notes };
}
