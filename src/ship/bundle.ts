/**
 * `mcpgen bundle`: an MCP Bundle (.mcpb, a zip) holding manifest.json and the server bundled with
 * everything it imports (server-bundle.ts), so the .mcpb needs nothing but `node`: no node_modules to
 * install or ship, and nothing platform-specific in it.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { zipSync } from "fflate";
import { DiagnosticError, type Diagnostic } from "../compiler/diagnostics.js";
import { OutputError } from "../compiler/write.js";
import { defaultBundleName, defaultEntry, display, resolveShipConfig, type ShipConfig, type ShipOptions } from "./config.js";
import { BUNDLE_ENTRY, BUNDLE_ICON, mcpbManifest, type McpbManifest } from "./mcpb.js";
import { writeOwned } from "./output.js";
import { readProject } from "./project.js";
import { bundleServer } from "./server-bundle.js";

export interface BundleResult {
  config: ShipConfig;
  file: string;
  manifest: McpbManifest;
  /** Sizes in bytes: the .mcpb; the bundled server before compression, and of it the file it starts with. */
  bytes: number;
  serverBytes: number;
  startupBytes: number;
  /** The server's files, and the source files bundled into them. */
  serverFiles: number;
  inputs: number;
}

/** Marks the manifest entry of a .mcpb made here (a zip file comment), so a rebuild may replace it. */
const MARK = "made by mcpgen";
// Fixed timestamps: the same input gives the same .mcpb.
const MTIME = new Date("2000-01-01T00:00:00Z");
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export async function bundle(options: ShipOptions = {}, mcpgenVersion = ""): Promise<BundleResult> {
  const config = resolveShipConfig(options);
  const { project, diagnostics } = await readProject(config);
  const icon = config.iconFile === undefined ? undefined : await readIcon(config, diagnostics);
  const { manifest, diagnostics: manifestProblems } = project ? mcpbManifest(project, { icon: icon !== undefined }) : { manifest: undefined, diagnostics: [] };
  diagnostics.push(...manifestProblems);
  if (diagnostics.length || !manifest || !project) throw new DiagnosticError(diagnostics);

  const entry = config.entryFile ?? path.resolve(config.cwd, defaultEntry(project.pkg));
  const entryShown = display(config, entry);
  if (!(await stat(entry).catch(() => undefined))?.isFile()) {
    throw new OutputError(`the compiled server entry ${entryShown} does not exist: build the project first (mcpgen build, then tsc), or name it with --entry`);
  }
  const server = await bundleServer(entry, entryShown, config.cwd);
  const files: Record<string, [Uint8Array, { comment?: string }]> = {
    "manifest.json": [Buffer.from(JSON.stringify(manifest, null, 2) + "\n"), { comment: `${MARK} ${mcpgenVersion}`.trim() }],
    ...Object.fromEntries([...server.files].map(([name, code]) => [name, [code, {}]])),
    ...(icon && { [BUNDLE_ICON]: [icon, {}] }),
  };
  const zip = zipSync(files, { level: 9, mtime: MTIME });
  const file = config.outFile ?? path.join(config.cwd, defaultBundleName(manifest.name, manifest.version));
  await writeOwned(file, display(config, file), zip, (existing) => existing.includes(MARK));
  const sizes = [...server.files.values()].map((code) => code.length);
  return {
    config,
    file,
    manifest,
    bytes: zip.length,
    serverBytes: sizes.reduce((sum, size) => sum + size, 0),
    startupBytes: server.files.get(BUNDLE_ENTRY)!.length,
    serverFiles: server.files.size,
    inputs: server.inputs,
  };
}

async function readIcon(config: ShipConfig, diagnostics: Diagnostic[]): Promise<Uint8Array | undefined> {
  const file = display(config, config.iconFile!);
  try {
    const bytes = await readFile(config.iconFile!);
    if (bytes.subarray(0, 8).equals(PNG)) return bytes;
    diagnostics.push({ file, pointer: "", message: "is not a PNG file (an MCP Bundle's icon must be a PNG, 512×512 recommended)" });
  } catch (error) {
    diagnostics.push({ file, pointer: "", message: `cannot be read: ${(error as Error).message}` });
  }
  return undefined;
}
