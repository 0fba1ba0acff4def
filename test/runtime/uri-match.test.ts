/**
 * Resource-template matching: RFC 6570 operators, the re-expansion check, time linear in the URI (crafted
 * URIs that made the former backtracking matcher take seconds), the bound on URI length, and no code
 * generation at run time (the matcher runs under `--disallow-code-generation-from-strings`, as on Workers or
 * under a strict CSP).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_URI_LENGTH } from "../../packages/runtime/src/protocol.js";
import { TemplateMatcher } from "../../packages/runtime/src/uri-match.js";
import { registry } from "./fixtures/primitives.mjs";
import { Harness } from "./helpers/core.js";
import { REPO_ROOT } from "./helpers/spec.js";

describe("TemplateMatcher", () => {
  const CASES: [template: string, uri: string, want: Record<string, string> | undefined][] = [
    ["x://a/{id}", "x://a/42", { id: "42" }],
    ["x://a/{id}", "x://a/", { id: "" }],
    ["x://a/{id}", "x://a/1/2", undefined],
    ["x://a/{id}", "x://a/%e2%82%ac", { id: "€" }],
    ["x://a/{id}", "x://a/%E2%82", undefined], // a malformed escape
    ["x://a/{id}", "x://a/a b", undefined], // the template would have encoded the space
    ["x://a/{+path}", "x://a/b/c?d", { path: "b/c?d" }],
    ["x://a/{+path}", "x://a/b%2Fc", undefined], // `+` would have printed the slash itself
    ["x://a/{id}.json", "x://a/report.v2.json", { id: "report.v2" }],
    ["x://a{/a,b}", "x://a/1/2", { a: "1", b: "2" }],
    ["x://a{/a,b}", "x://a/1", { a: "1" }],
    ["x://a{/a,b}", "x://a", {}],
    ["x://a/f{.ext}", "x://a/f.txt", { ext: "txt" }],
    ["x://a/{x}{;p,q}", "x://a/1;p=2;q", { x: "1", p: "2", q: "" }],
    ["x://a/{x}{#frag}", "x://a/1#sec/2", { x: "1", frag: "sec/2" }],
    ["x://a/{x}{?limit,offset}", "x://a/1?offset=2", { x: "1", offset: "2" }],
    ["x://a/{x}{?limit,offset}", "x://a/1?limit=&offset=2", { x: "1", limit: "", offset: "2" }],
    ["x://a/{x}{?limit,offset}", "x://a/1&offset=2", undefined],
    ["x://a/{x}{?limit}{&page}", "x://a/1?limit=3&page=4", { x: "1", limit: "3", page: "4" }],
    ["x://a/{x}{?limit}{&page}", "x://a/1&page=4", { x: "1", page: "4" }],
    ["x://a/{code:3}", "x://a/abc", { code: "abc" }],
    ["x://a/{code:3}", "x://a/abcd", undefined],
    ["x://a/{x,y}", "x://a/1,2", { x: "1", y: "2" }],
    ["x://{host}/{id}", "x://Example.COM/%2f", { host: "Example.COM", id: "/" }],
    ["x://a/(lit)/{id}", "x://a/(lit)/1", { id: "1" }], // literals are quoted, not read as expression syntax
    ["x://a/(lit)/{id}", "x://a/l/1", undefined],
  ];

  it.each(CASES)("%s matches %j as %j", (template, uri, want) => {
    expect(new TemplateMatcher(template).match(uri)).toEqual(want);
  });

  it("takes variables named like members of Object.prototype as plain names", () => {
    const matcher = new TemplateMatcher("proto://{constructor}/{__proto__}{?toString,valueOf}");
    const found = matcher.match("proto://a/b?toString=3");
    expect(found === undefined ? undefined : Object.entries(found)).toEqual([
      ["constructor", "a"],
      ["__proto__", "b"],
      ["toString", "3"],
    ]);
    expect(matcher.match("proto://a/b?hasOwnProperty=1")).toBeUndefined();
  });

  // Each of these made uri-template-lite's backtracking expressions take seconds at 30–70 KB.
  const ATTACKS: [template: string, unit: string, tail: string][] = [
    ["tasks://status/{status}{?limit}", "?limit=", "\n"],
    ["mem://search/{term}{?limit,offset}", "?limit=&offset=", "!"],
    ["mem://any/{+rest}", "a/", " "],
    ["mem://a/{x}{/a,b,c}{?p,q}", "/p=", "#"],
  ];

  it.each(ATTACKS)("matches %s against a 1 MiB crafted URI in time linear in its length", (template, unit, tail) => {
    const matcher = new TemplateMatcher(template);
    const prefix = template.slice(0, template.indexOf("{"));
    const uri = prefix + unit.repeat(Math.ceil(2 ** 20 / unit.length)) + tail;
    const started = performance.now();
    expect(matcher.match(uri)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("extracts a value spanning a whole 1 MiB URI in time linear in its length", () => {
    const uri = "mem://files/" + "a/".repeat(2 ** 19);
    const started = performance.now();
    expect(new TemplateMatcher("mem://files/{+path}").match(uri)?.path).toHaveLength(2 ** 20);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("builds no code at run time: it matches under --disallow-code-generation-from-strings", () => {
    const script = `
      import { TemplateMatcher } from ${JSON.stringify(resolve(REPO_ROOT, "packages/runtime/dist/uri-match.js"))};
      let blocked = false;
      try { new Function("return 1"); } catch { blocked = true; }
      const found = new TemplateMatcher("x://a/{id}{?limit}").match("x://a/1?limit=2");
      console.log(JSON.stringify({ blocked, found }));`;
    const run = spawnSync(process.execPath, ["--disallow-code-generation-from-strings", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
    expect(run.stderr).toBe("");
    expect(JSON.parse(run.stdout)).toEqual({ blocked: true, found: { id: "1", limit: "2" } });
  });
});

describe.each(["2025-11-25", "2026-07-28"])("resources/read of crafted URIs, %s", (era) => {

  async function connect(): Promise<Harness> {
    const h = new Harness({ registry });
    if (era !== "2026-07-28") await h.initialize(era);
    else h.version = era;
    // Load the matchers first, so that the reads below match at once.
    await h.result("resources/read", { uri: "mem://search/warm" });
    return h;
  }

  it.each([70_000, 2 ** 20, 4 * 2 ** 20])("refuses a %i-character URI at once, without echoing it", async (size) => {
    const h = await connect();
    const uri = ("mem://search/" + "?limit=".repeat(size / 7)).slice(0, size - 1) + "\n";
    const started = performance.now();
    const error = await h.error("resources/read", { uri });
    expect(performance.now() - started).toBeLessThan(500);
    expect(error).toEqual({ code: -32602, message: `Invalid params: "uri" is longer than ${MAX_URI_LENGTH} characters` });
  });

  it.each([
    ["a crafted query", fill("mem://search/", "?limit=", "\n")],
    ["a reserved path", fill("mem://any/", "a/", "")],
    ["a reserved path, then a mismatch", fill("mem://any/", "a/", " ")],
    ["a path checked by a pattern", fill("mem://files/", "a/", "")],
  ])("answers a ping within 50 ms while it reads %s as long as the bound allows", async (_name, uri) => {
    expect(uri.length).toBeLessThanOrEqual(MAX_URI_LENGTH);
    const h = await connect();
    const started = performance.now();
    const read = h.raw({ jsonrpc: "2.0", id: "read", method: "resources/read", params: { uri, ...(era === "2026-07-28" && { _meta: ENVELOPE_2026 }) } });
    const ping = h.raw({ jsonrpc: "2.0", id: "ping", method: "ping", params: era === "2026-07-28" ? { _meta: ENVELOPE_2026 } : {} }).then(() => performance.now() - started);
    await read;
    expect(await ping).toBeLessThan(50);
  });
});

const ENVELOPE_2026 = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "core-test", version: "0.0.1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** `prefix`, then `unit` repeated, then `tail`: as long as the bound allows. */
function fill(prefix: string, unit: string, tail: string): string {
  return prefix + unit.repeat(Math.floor((MAX_URI_LENGTH - prefix.length - tail.length) / unit.length)) + tail;
}
