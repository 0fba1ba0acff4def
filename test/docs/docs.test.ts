// `mcpgen docs`: the catalog of the example server and of a fixture whose every text is hostile, compared with
// golden files (update with `npx vitest run test/docs/docs.test.ts -u`), the escaping rules, and the command.
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { renderDocs } from "../../dist/docs/index.js";
import { code, text } from "../../dist/docs/markdown.js";
import { escape } from "../../dist/docs/html.js";
import { rows } from "../../dist/docs/model.js";
import { REPO, tempProject } from "../compiler/helpers.js";
import { mcpgen } from "../ship/helpers.js";
import { DOCS_CASES } from "./cases.js";


describe.each(Object.entries(DOCS_CASES))("the catalog of %s", (name, schemas) => {
  it("matches its golden Markdown and HTML", async () => {
    const { files } = await renderDocs({ schemas: path.relative(REPO, schemas), cwd: REPO }, "0.1.0");
    expect([...files.keys()]).toEqual(["index.md", "index.html"]);
    for (const [file, content] of files) await expect(content).toMatchFileSnapshot(path.join(REPO, "test/docs/expected", name, file));
  });
});

describe("escaping", () => {
  it("leaves no Markdown or HTML in text", () => {
    expect(text("<b>x</b> **y** | `z` [a](b) & _c_")).toBe("&lt;b&gt;x&lt;/b&gt; \\*\\*y\\*\\* \\| \\`z\\` \\[a\\](b) &amp; \\_c\\_");
    expect(text("# h")).toBe("\\# h");
    expect(text("- item")).toBe("\\- item");
    expect(text("12. item")).toBe("12\\. item");
    expect(text("a\nb\u2028c")).toBe("a b c");
  });
  it("makes code spans longer than the backticks inside", () => {
    expect(code("a`b")).toBe("``a`b``");
    expect(code("`x`")).toBe("`` `x` ``");
    expect(code("a|b")).toBe("`a\\|b`");
    expect(code("a|b", false)).toBe("`a|b`");
  });
  it("escapes HTML's five characters", () => {
    expect(escape(`<a href="x" title='y'>&</a>`)).toBe("&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;");
  });
});

describe("rows", () => {
  it("follow nested objects, array items and $defs, once per branch of a recursive definition", () => {
    const schema = {
      type: "object",
      required: ["node"],
      properties: { node: { $ref: "#/$defs/node" }, tags: { type: "array", items: { type: "string", pattern: "^t" }, maxItems: 2 } },
      $defs: { node: { type: "object", properties: { label: { type: "string", default: "n" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    };
    expect(rows(schema).map((r) => [r.path, r.type, r.required, r.constraints, r.default])).toEqual([
      ["node", "object (node)", true, [], undefined],
      ["node.label", "string", false, [], '"n"'],
      ["node.children", "array of node", false, [], undefined],
      ["tags", "array of string", false, [["max items", "2"]], undefined],
    ]);
  });
});

describe("mcpgen docs", () => {
  it("writes the format asked for into --out, and replaces only its own files", async () => {
    const dir = await tempProject();
    const md = await mcpgen(REPO, "docs", "schemas", "--out", dir, "--format", "md");
    expect(md.code, md.stderr).toBe(0);
    expect(md.stderr).toContain("index.md");
    expect(await readFile(path.join(dir, "index.md"), "utf8")).toContain("### `create_task` — Create a task");
    await writeFile(path.join(dir, "index.html"), "<p>mine</p>");
    const html = await mcpgen(REPO, "docs", "schemas", "--out", dir, "--format", "html");
    expect(html.code).toBe(1);
    expect(html.stderr).toMatch(/index\.html exists and was not written by mcpgen docs/);
    expect(await readFile(path.join(dir, "index.html"), "utf8")).toBe("<p>mine</p>");
    const again = await mcpgen(REPO, "docs", "schemas", "--out", dir, "--format", "md", "--quiet");
    expect([again.code, again.stderr]).toEqual([0, expect.not.stringContaining("mcpgen: docs")]);
  });

  it("refuses a bad format and reports schema problems as diagnostics", async () => {
    const bad = await mcpgen(REPO, "docs", "schemas", "--format", "pdf");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Allowed choices are md, html, both/);
    const dir = await tempProject();
    const missing = await mcpgen(dir, "docs", "nowhere");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nowhere/);
  });

  it("has --help", async () => {
    const help = await mcpgen(REPO, "docs", "--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--format <format>/);
    expect(help.stdout).toMatch(/--out <dir>/);
  });
});
