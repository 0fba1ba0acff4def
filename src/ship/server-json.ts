/**
 * The MCP Registry's server.json (format 2025-12-11) for a server published as an npm package. Every
 * rule the registry applies when publishing is checked here first, so a problem is reported against the
 * file it comes from (package.json or schemas/server.json) instead of by the registry afterwards.
 */
import { pointerJoin, type Diagnostic } from "../compiler/diagnostics.js";
import { description, pkgString, repository, type Project } from "./project.js";
import type { Setting } from "./settings.js";

export const SERVER_JSON_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/** Where `_meta` says which tool wrote the file; `server-json` replaces only files that say mcpgen. */
export const PUBLISHER_META = "io.modelcontextprotocol.registry/publisher-provided";

export interface RegistryServerJson {
  $schema: string;
  name: string;
  title?: string;
  description: string;
  version: string;
  websiteUrl?: string;
  repository?: { url: string; source: "github" | "gitlab"; subfolder?: string };
  icons?: Record<string, unknown>[];
  packages: RegistryPackage[];
  _meta: Record<string, Record<string, unknown>>;
}

interface RegistryPackage {
  registryType: "npm";
  identifier: string;
  version: string;
  transport: { type: "stdio" };
  environmentVariables?: Record<string, unknown>[];
}

// Server names: a reverse-DNS namespace, one slash, a name; each part starts and ends alphanumeric.
const NAMESPACE = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;
const NAME_PART = /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;
// An exact semantic version (semver.org's grammar): what npm publishes, and never a range.
const EXACT_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;
const REPOSITORY_URL = { github: /^https:\/\/(www\.)?github\.com\/[\w.-]+\/[\w.-]+\/?$/, gitlab: /^https:\/\/(www\.)?gitlab\.com\/[\w.-]+(\/[\w.-]+)+\/?$/ } as const;
const ICON_TYPES = ["image/png", "image/jpeg", "image/jpg", "image/svg+xml", "image/webp"];
const codePoints = (s: string) => [...s].length;

export function serverJson(project: Project, mcpgenVersion: string): { doc: RegistryServerJson | undefined; diagnostics: Diagnostic[]; notes: string[] } {
  const diagnostics: Diagnostic[] = [];
  const notes: string[] = [];
  const inPkg = (pointer: string, message: string) => diagnostics.push({ file: project.pkgFile, pointer, message });
  const inServer = (pointer: string, message: string) => diagnostics.push({ file: project.serverFile, pointer, message });

  // name: package.json's mcpName, which npm publishes and the registry compares with `name` (ownership).
  const name = project.pkg.mcpName;
  if (typeof name !== "string" || name === "") {
    inPkg("/mcpName", 'missing: the MCP Registry name of the server, e.g. "io.github.<owner>/<name>"; the registry checks that the published npm package carries it');
  } else {
    const parts = name.split("/");
    if (parts.length !== 2) inPkg("/mcpName", `"${name}" must be a namespace and a name separated by exactly one "/", e.g. "io.github.<owner>/<name>"`);
    else {
      if (!NAMESPACE.test(parts[0]!)) inPkg("/mcpName", `the namespace "${parts[0]}" must be reverse-DNS: letters, digits, "." and "-", starting and ending with a letter or digit`);
      if (!NAME_PART.test(parts[1]!)) inPkg("/mcpName", `the name "${parts[1]}" may hold letters, digits, ".", "_" and "-", starting and ending with a letter or digit`);
    }
    if (name.length < 3 || name.length > 200) inPkg("/mcpName", "must be 3 to 200 characters long");
  }

  const identifier = pkgString(project, "name");
  if (identifier === undefined) inPkg("/name", "missing: the npm package name the registry entry points to");
  else if (/\s/.test(identifier)) inPkg("/name", "an npm package name has no spaces");

  const version = pkgString(project, "version");
  if (version === undefined) inPkg("/version", "missing: the exact version being published");
  else if (!EXACT_VERSION.test(version)) inPkg("/version", `"${version}" is not an exact version such as 1.2.3: the MCP Registry rejects "latest" and ranges (^, ~, >=, x, *, ||, a - b)`);
  else if (version.length > 255) inPkg("/version", "must be at most 255 characters long");

  const desc = description(project);
  if (desc === undefined) inServer("/description", "missing: the MCP Registry needs a description of 1 to 100 characters (here or in package.json)");
  else if (codePoints(desc.text) > 100) {
    diagnostics.push({ file: desc.file, pointer: "/description", message: `is ${codePoints(desc.text)} characters long; the MCP Registry accepts at most 100` });
  }

  const title = project.ir.server.title;
  if (title !== undefined && (title.trim() === "" || codePoints(title) > 100)) inServer("/title", "the MCP Registry accepts a title of 1 to 100 characters, not only spaces");

  let websiteUrl = project.ir.server.websiteUrl;
  if (websiteUrl !== undefined) {
    if (!isHttps(websiteUrl)) inServer("/websiteUrl", `"${websiteUrl}" must be an absolute https URL for the MCP Registry`);
  } else {
    const homepage = pkgString(project, "homepage");
    if (homepage !== undefined && isHttps(homepage)) websiteUrl = homepage;
  }

  const icons = project.ir.server.icons;
  icons?.forEach((icon, i) => {
    const at = (field: string) => pointerJoin("/icons", i, field);
    if (typeof icon.src !== "string" || !isHttps(icon.src)) inServer(at("src"), "the MCP Registry accepts only absolute https icon URLs (no http: or data: URIs)");
    else if (icon.src.length > 255) inServer(at("src"), "the MCP Registry accepts icon URLs of at most 255 characters");
    if (icon.mimeType !== undefined && !ICON_TYPES.includes(icon.mimeType as string)) inServer(at("mimeType"), `the MCP Registry accepts ${ICON_TYPES.join(", ")}`);
    (icon.sizes as unknown[] | undefined)?.forEach((size, j) => {
      if (typeof size !== "string" || !/^(\d+x\d+|any)$/.test(size)) inServer(pointerJoin("/icons", i, "sizes", j), 'must be "<width>x<height>" or "any"');
    });
  });

  let repo: RegistryServerJson["repository"];
  const found = repository(project);
  if (found) {
    const source = (Object.keys(REPOSITORY_URL) as ("github" | "gitlab")[]).find((s) => REPOSITORY_URL[s].test(found.url));
    if (source === undefined) notes.push(`repository ${found.url} left out: the MCP Registry accepts only GitHub and GitLab repositories`);
    else {
      repo = { url: found.url.replace(/\/$/, ""), source };
      if (found.directory !== undefined) {
        const segments = found.directory.split("/");
        if (!/^[\w./-]+$/.test(found.directory) || segments.some((s) => s === "" || s === "." || s === "..")) {
          inPkg("/repository/directory", "must be a clean relative path (no leading or trailing /, no . or .. segments) for the MCP Registry's subfolder");
        } else repo.subfolder = found.directory;
      }
    }
  }
  if (project.pkg.private === true) notes.push("package.json says private: npm will refuse to publish the package this entry points to");
  if (version !== undefined && project.ir.server.version !== version) {
    notes.push(`schemas/server.json has version ${project.ir.server.version}, package.json ${version}: the entry uses package.json's`);
  }

  if (diagnostics.length || typeof name !== "string" || !identifier || !version || !desc) return { doc: undefined, diagnostics, notes };
  const pkgEntry: RegistryPackage = { registryType: "npm", identifier, version, transport: { type: "stdio" } };
  if (project.settings.length) pkgEntry.environmentVariables = project.settings.map(environmentVariable);
  return {
    doc: {
      $schema: SERVER_JSON_SCHEMA,
      name,
      ...(title !== undefined && { title }),
      description: desc.text,
      version,
      ...(websiteUrl !== undefined && { websiteUrl }),
      ...(repo && { repository: repo }),
      ...(icons?.length && { icons }),
      packages: [pkgEntry],
      _meta: { [PUBLISHER_META]: { tool: "mcpgen", version: mcpgenVersion } },
    },
    diagnostics,
    notes,
  };
}

function environmentVariable(s: Setting): Record<string, unknown> {
  return {
    name: s.env,
    description: s.description,
    ...(s.required && { isRequired: true }),
    ...(s.secret && { isSecret: true }),
    format: s.type === "directory" || s.type === "file" ? "filepath" : s.type,
    ...(s.default !== undefined && { default: String(s.default) }),
  };
}

function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

/** True when `text` is a server.json this command wrote (so it may be replaced). */
export function writtenByMcpgen(text: string): boolean {
  try {
    const doc = JSON.parse(text) as { _meta?: Record<string, { tool?: unknown }> };
    return doc._meta?.[PUBLISHER_META]?.tool === "mcpgen";
  } catch {
    return false;
  }
}
