/**
 * The manifest.json of an MCP Bundle (manifest_version 0.2, the current version of the MCPB spec):
 * identity from package.json, tools and prompts from the schemas, the entry point run with `node`, and
 * the declared settings as `user_config` passed to the server in `mcp_config.env`.
 */
import type { Diagnostic } from "../compiler/diagnostics.js";
import { description, pkgString, repository, type Project } from "./project.js";

export const MANIFEST_VERSION = "0.2";
/** Where the bundled server lives inside the .mcpb (ESM, so `.mjs` whatever package.json is around it). */
export const BUNDLE_ENTRY = "server/index.mjs";
export const BUNDLE_ICON = "icon.png";

export interface McpbManifest {
  manifest_version: string;
  name: string;
  display_name?: string;
  version: string;
  description: string;
  author: { name: string; email?: string; url?: string };
  repository?: { type: "git"; url: string };
  homepage?: string;
  support?: string;
  icon?: string;
  server: { type: "node"; entry_point: string; mcp_config: { command: "node"; args: string[]; env?: Record<string, string> } };
  tools?: { name: string; description?: string }[];
  prompts?: { name: string; description?: string; arguments?: string[]; text: string }[];
  keywords?: string[];
  license?: string;
  compatibility: { runtimes: { node: string } };
  user_config?: Record<string, Record<string, unknown>>;
}

export function mcpbManifest(project: Project, options: { icon: boolean }): { manifest: McpbManifest | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const inPkg = (pointer: string, message: string) => diagnostics.push({ file: project.pkgFile, pointer, message });
  const name = pkgString(project, "name");
  if (name === undefined) inPkg("/name", "missing: the bundle's machine-readable name");
  const version = pkgString(project, "version");
  if (version === undefined) inPkg("/version", "missing: the bundle's version");
  const desc = description(project);
  if (desc === undefined) diagnostics.push({ file: project.serverFile, pointer: "/description", message: "missing: an MCP Bundle needs a description (here or in package.json)" });
  const author = readAuthor(project.pkg.author, inPkg);

  const homepage = pkgString(project, "homepage") ?? project.ir.server.websiteUrl;
  if (homepage !== undefined && !isUrl(homepage)) inPkg("/homepage", `"${homepage}" is not an absolute URL`);
  const bugs = project.pkg.bugs;
  const support = typeof bugs === "string" ? bugs : bugs && typeof bugs === "object" ? (bugs as { url?: unknown }).url : undefined;
  const repo = repository(project);
  const keywords = Array.isArray(project.pkg.keywords) ? project.pkg.keywords.filter((k): k is string => typeof k === "string") : [];
  const license = pkgString(project, "license");
  const engines = project.pkg.engines as { node?: unknown } | undefined;
  if (diagnostics.length || !name || !version || !desc || !author) return { manifest: undefined, diagnostics };

  const env = Object.fromEntries(project.settings.map((s) => [s.env, `\${user_config.${s.key}}`]));
  const tools = project.ir.tools.filter((t) => !t.hidden).map((t) => ({ name: t.name, ...(t.wire.description !== undefined && { description: t.wire.description }) }));
  const prompts = project.ir.prompts.map((p) => {
    const args = (p.wire.arguments ?? []).map((a) => a.name);
    // The manifest wants a prompt's text, but a handler renders it at run time: the text describes the
    // prompt and names its arguments, and clients get the real messages from prompts/get.
    const about = p.wire.description ?? p.wire.title ?? p.name;
    const text = args.length ? `${about}\n\n${args.map((a) => `${a}: \${arguments.${a}}`).join("\n")}` : about;
    return { name: p.name, ...(p.wire.description !== undefined && { description: p.wire.description }), ...(args.length && { arguments: args }), text };
  });
  const manifest: McpbManifest = {
    manifest_version: MANIFEST_VERSION,
    name,
    ...(project.ir.server.title !== undefined && { display_name: project.ir.server.title }),
    version,
    description: desc.text,
    author,
    ...(repo && isUrl(repo.url) && { repository: { type: "git" as const, url: repo.url } }),
    ...(homepage !== undefined && { homepage }),
    ...(typeof support === "string" && isUrl(support) && { support }),
    ...(options.icon && { icon: BUNDLE_ICON }),
    server: {
      type: "node",
      entry_point: BUNDLE_ENTRY,
      mcp_config: { command: "node", args: [`\${__dirname}/${BUNDLE_ENTRY}`], ...(project.settings.length && { env }) },
    },
    ...(tools.length && { tools }),
    ...(prompts.length && { prompts }),
    ...(keywords.length && { keywords }),
    ...(license !== undefined && { license }),
    compatibility: { runtimes: { node: typeof engines?.node === "string" ? engines.node : ">=20" } },
  };
  if (project.settings.length) {
    manifest.user_config = Object.fromEntries(
      project.settings.map((s) => [
        s.key,
        {
          type: s.type,
          title: s.title,
          description: s.description,
          ...(s.required && { required: true }),
          ...(s.secret && { sensitive: true }),
          ...(s.default !== undefined && { default: s.default }),
          ...(s.min !== undefined && { min: s.min }),
          ...(s.max !== undefined && { max: s.max }),
        },
      ]),
    );
  }
  return { manifest, diagnostics };
}

/** package.json's `author`: an object, or npm's "Name <email> (url)" string. */
function readAuthor(raw: unknown, problem: (pointer: string, message: string) => void): McpbManifest["author"] | undefined {
  let author: { name?: unknown; email?: unknown; url?: unknown } | undefined;
  if (typeof raw === "string") {
    const m = /^\s*([^<(]*?)\s*(?:<([^>]*)>)?\s*(?:\(([^)]*)\))?\s*$/.exec(raw);
    author = m ? { name: m[1], email: m[2], url: m[3] } : { name: raw };
  } else if (raw && typeof raw === "object" && !Array.isArray(raw)) author = raw as typeof author;
  if (!author || typeof author.name !== "string" || author.name === "") {
    problem("/author", 'missing: an MCP Bundle names its author, e.g. "author": "Ada Lovelace <ada@example.com> (https://example.com)"');
    return undefined;
  }
  const result: McpbManifest["author"] = { name: author.name };
  if (typeof author.email === "string" && author.email !== "") {
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(author.email)) problem("/author", `"${author.email}" is not an email address`);
    else result.email = author.email;
  }
  if (typeof author.url === "string" && author.url !== "") {
    if (!isUrl(author.url)) problem("/author", `"${author.url}" is not an absolute URL`);
    else result.url = author.url;
  }
  return result;
}

function isUrl(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}
