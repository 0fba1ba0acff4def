// The HTML catalog (and the Markdown one, rendered by a GFM parser) in a real browser: headless Chromium from
// Debian's packages, driven by playwright-core, the page served from a loopback HTTP server. Every tool's
// section, badges and tables are found by DOM queries; nothing a schema says becomes markup; no console
// error, no request but the page. Screenshots go to test-output/docs/ (git-ignored).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { marked } from "marked";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileIr } from "mcpgen";
import { renderDocs } from "../../dist/docs/index.js";
import { rows } from "../../dist/docs/model.js";
import { REPO } from "../compiler/helpers.js";
import { DOCS_CASES } from "./cases.js";

const CHROMIUM = "/usr/bin/chromium";
const SHOTS = path.join(REPO, "test-output/docs");
const HINTS: Record<string, [string, string]> = {
  readOnlyHint: ["read-only", "not read-only"],
  destructiveHint: ["destructive", "not destructive"],
  idempotentHint: ["idempotent", "not idempotent"],
  openWorldHint: ["open world", "closed world"],
};

let context: BrowserContext;
let profile: string;
let http: Server;
let base: string;
const pages = new Map<string, string>();

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: the HTML catalog is checked in a real browser. ` +
        "Install it with `bash scripts/services.sh` as root (npm test runs it first), or `sudo apt-get install -y --no-install-recommends chromium`.",
    );
  }
  for (const [name, schemas] of Object.entries(DOCS_CASES)) {
    const { files } = await renderDocs({ schemas, cwd: REPO }, "0.1.0");
    pages.set(`/${name}/index.html`, files.get("index.html")!);
    const md = await marked.parse(files.get("index.md")!, { gfm: true, async: true });
    pages.set(`/${name}/md.html`, `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${name} (Markdown)</title></head><body>\n${md}\n</body></html>`);
  }
  http = createServer((req, res) => {
    const page = pages.get(req.url ?? "");
    res.writeHead(page ? 200 : 404, { "content-type": "text/html; charset=utf-8" }).end(page ?? "not found");
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  profile = await mkdtemp(path.join(tmpdir(), "mcpgen-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    javaScriptEnabled: true, // the page has no script; JavaScript stays on so an injected one would run and be caught
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  await mkdir(SHOTS, { recursive: true });
});

afterAll(async () => {
  await context?.close();
  await new Promise((resolve) => (http ? http.close(resolve) : resolve(undefined)));
  if (profile) await rm(profile, { recursive: true, force: true });
});

/** Opens a page and collects what must stay empty: console errors, page errors, dialogs, other requests. */
async function open(url: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("dialog", (d) => (problems.push(`dialog: ${d.message()}`), void d.dismiss()));
  page.on("request", (r) => r.url() !== url && problems.push(`request: ${r.url()}`));
  const response = await page.goto(url, { waitUntil: "load" });
  expect(response?.status()).toBe(200);
  return { page, problems };
}

describe.each(Object.entries(DOCS_CASES))("the HTML catalog of %s", (name, schemas) => {
  it("renders every tool's section with its badges and tables, and nothing from a schema as markup", async () => {
    const { ir } = await compileIr({ schemas, cwd: REPO });
    const { page, problems } = await open(`${base}/${name}/index.html`);
    expect(await page.locator("h1").textContent()).toBe(ir.server.title ?? ir.server.name);
    const articles = page.locator("section#tools > article.tool");
    expect(await articles.count()).toBe(ir.tools.length);
    for (const [i, tool] of ir.tools.entries()) {
      const article = articles.nth(i);
      expect(await article.getAttribute("data-name")).toBe(tool.name);
      expect(await article.locator("h3 code.name").textContent()).toBe(tool.name);
      expect(await article.isVisible()).toBe(true);
      // A TOC link leads to it.
      const id = await article.getAttribute("id");
      expect(await page.locator(`nav a[href="#${id}"]`).count()).toBe(1);
      const hints = Object.entries((tool.wire.annotations ?? {}) as Record<string, unknown>).filter(([k, v]) => k in HINTS && typeof v === "boolean");
      const badges = await article.locator(".badge[data-hint]").evaluateAll((els) => els.map((e) => [e.getAttribute("data-hint"), e.getAttribute("data-value"), e.textContent]));
      expect(badges).toEqual(hints.map(([k, v]) => [k, String(v), HINTS[k]![v ? 0 : 1]]));
      for (const [kind, schema] of [["input", tool.wire.inputSchema], ["output", tool.wire.outputSchema]] as const) {
        const table = article.locator(`table[data-table="${kind}"]`);
        const expected = schema ? rows(schema) : undefined;
        if (!expected?.length) {
          expect(await table.count()).toBe(0);
          continue;
        }
        expect(await table.locator("thead th").allTextContents()).toEqual(["Property", "Type", "Required", "Constraints", "Default", "Description"]);
        const cells = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)));
        expect(cells.map((c) => c.length)).toEqual(expected.map(() => 6));
        expect(cells.map((c) => [c[0], c[1], c[2], c[4], c[5]])).toEqual(expected.map((r) => [r.path, r.type, r.required ? "yes" : "no", r.default ?? "", r.description ?? ""]));
        expect(await table.isVisible()).toBe(true);
      }
      expect(await article.locator(".example").count()).toBe(tool.examples.length);
    }
    for (const [kind, items] of [["resource", ir.resources], ["template", ir.templates], ["prompt", ir.prompts]] as const) {
      expect(await page.locator(`article.${kind}`).evaluateAll((els) => els.map((e) => e.getAttribute("data-name")))).toEqual(items.map((i) => i.name));
    }
    // No markup came from a schema: the page's elements are the renderer's own.
    expect(await page.locator("script, img, iframe, a[href^='javascript'], [onerror], [onclick]").count()).toBe(0);
    expect(await page.title()).toBe(`${ir.server.title ?? ir.server.name} — MCP server`);
    const shot = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${path.relative(REPO, shot)}`);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("has Markdown that a GFM renderer turns into the same tables, with nothing from a schema as markup", async () => {
    const { ir } = await compileIr({ schemas, cwd: REPO });
    const { page, problems } = await open(`${base}/${name}/md.html`);
    const headings = await page.locator("h3").evaluateAll((hs) => hs.map((h) => h.querySelector("code")?.textContent));
    expect(headings).toEqual(expect.arrayContaining(ir.tools.map((t) => t.name)));
    // Every table of the page: a tool's input, its output, then templates' variables and prompts' arguments.
    const expectedTables = [
      ...ir.tools.flatMap((t) => [rows(t.wire.inputSchema), ...(t.wire.outputSchema ? [rows(t.wire.outputSchema)] : [])]),
      ...ir.templates.map((t) => rows(t.schema as Record<string, unknown>)),
      ...ir.prompts.map((p) => rows(p.schema as Record<string, unknown>)),
    ].filter((r) => r.length);
    const tables = await page.locator("table").evaluateAll((ts) => ts.map((t) => [...t.querySelectorAll("tbody tr")].map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent))));
    expect(tables.map((t) => t.map((r) => [r.length, r[0], r[1], r[5]]))).toEqual(expectedTables.map((t) => t.map((r) => [6, r.path, r.type, r.description ?? ""])));
    expect(await page.locator("script, img, iframe, a[href^='javascript'], [onerror], [onclick]").count()).toBe(0);
    // Markdown in a description stays text: the badges are the only bold, the tool headings the only h3.
    expect(await page.locator("strong").allTextContents()).toEqual(expect.not.arrayContaining(["bold"]));
    if (name === "tricky") expect(await page.locator("body").textContent()).toContain("**bold** _it_ `tick` ``` | pipe | [link](javascript:alert(3))");
    await page.screenshot({ path: path.join(SHOTS, `${name}-md.png`), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
