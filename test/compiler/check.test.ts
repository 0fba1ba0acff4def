// Table-driven tests of every diagnostic the compiler gives: `given` schema files, `want` the exact,
// sorted `file#/pointer: message` lines — and nothing written.
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, symlink } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { build, formatDiagnostic } from "mcpgen";
import { buildFiles, server, tempProject, writeSchemas } from "./helpers.js";

const obj = { type: "object" };

/** An object schema nesting `levels` object schemas through "properties/a". */
function deep(levels: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < levels; i++) schema = { type: "object", properties: { a: schema } };
  return schema;
}

const cases: { name: string; given: Record<string, unknown>; want: string[] }[] = [
  {
    name: "invalid JSON",
    given: server({ a: { inputSchema: obj } }, { "tools/b.json": '{ "inputSchema": {\n  "type": "object",,\n}' }),
    want: ["schemas/tools/b.json#: invalid JSON (line 2, column 20): Expected double-quoted property name"],
  },
  {
    name: "invalid YAML",
    given: server({ a: { inputSchema: obj } }, { "tools/b.yaml": "inputSchema:\n  type: object\n   bad: indent\n" }),
    want: ["schemas/tools/b.yaml#: invalid YAML (line 2, column 9): Nested mappings are not allowed in compact mappings"],
  },
  {
    name: "missing server.json",
    given: { "annotations.json": { tools: { a: "readOnly" } }, "tools/a.json": { inputSchema: obj } },
    want: ['schemas/server.json#: missing: every server needs a server.json with at least "name" and "version"'],
  },
  {
    name: "a server.json that does not load is not also missing",
    given: { ...server({ a: { inputSchema: obj } }), "server.json": '{ "name": "x", "version": "1", }' },
    want: ["schemas/server.json#: invalid JSON (line 1, column 32): Expected double-quoted property name"],
  },
  {
    name: "server.json fields",
    given: { ...server({ a: { inputSchema: obj } }), "server.json": { name: "x", versoin: "1" } },
    want: ['schemas/server.json#: missing required property "version"', "schemas/server.json#/versoin: unknown property"],
  },
  {
    name: "not valid JSON Schema",
    given: server({ a: { inputSchema: { type: "object", properties: { q: { type: "strin" }, n: { minimum: "1" } } } } }),
    want: [
      "schemas/tools/a.json#/inputSchema/properties/n/minimum: must be number",
      'schemas/tools/a.json#/inputSchema/properties/q/type: must be one of ["array","boolean","integer","null","number","object","string"]',
    ],
  },
  {
    name: "unknown keywords and formats",
    given: server({ a: { inputSchema: { type: "object", reqired: ["q"], properties: { q: { type: "string", format: "emial", "x-ok": 1 } } } } }),
    want: [
      'schemas/tools/a.json#/inputSchema/properties/q/format: warning: unknown format "emial": kept as an annotation, not validated',
      'schemas/tools/a.json#/inputSchema/reqired: unknown keyword "reqired" (extension keywords start with "x-")',
    ],
  },
  {
    name: "unresolvable $refs",
    given: server({
      a: {
        inputSchema: {
          type: "object",
          properties: {
            b: { $ref: "../defs/missing.json" },
            c: { $ref: "#/$defs/nope" },
            d: { $ref: "../defs/x.json#/$defs/gone" },
            e: { $ref: "https://example.com/schema.json" },
            f: { $ref: "#nowhere" },
          },
        },
      },
    }, { "defs/x.json": { $defs: {} } }),
    want: [
      'schemas/tools/a.json#/inputSchema/properties/b/$ref: cannot resolve "../defs/missing.json": no such file in defs/ (cross-file references must point into the defs/ folder)',
      'schemas/tools/a.json#/inputSchema/properties/c/$ref: cannot resolve "#/$defs/nope": /$defs/nope does not exist in schemas/tools/a.json',
      'schemas/tools/a.json#/inputSchema/properties/d/$ref: cannot resolve "../defs/x.json#/$defs/gone": /$defs/gone does not exist in schemas/defs/x.json',
      'schemas/tools/a.json#/inputSchema/properties/e/$ref: cannot resolve "https://example.com/schema.json": remote references are not fetched: copy the schema into defs/',
      'schemas/tools/a.json#/inputSchema/properties/f/$ref: cannot resolve "#nowhere": no $anchor "nowhere" in schemas/tools/a.json',
    ],
  },
  {
    name: "a broken ref inside a defs file points into that file",
    given: server({ a: { inputSchema: { type: "object", properties: { b: { $ref: "../defs/x.json" } } } } }, {
      "defs/x.json": { type: "object", properties: { y: { $ref: "#/$defs/y" } } },
    }),
    want: ['schemas/defs/x.json#/properties/y/$ref: cannot resolve "#/$defs/y": /$defs/y does not exist in schemas/defs/x.json'],
  },
  {
    name: "invalid and duplicate tool names",
    given: {
      ...server({ a: { inputSchema: obj }, b: { name: "a", inputSchema: obj }, c: { name: "bad name", inputSchema: obj } }),
      "annotations.json": { requireHints: false },
    },
    want: [
      'schemas/tools/b.json#/name: duplicate tool name "a" (also defined in schemas/tools/a.json)',
      'schemas/tools/c.json#/name: invalid tool name "bad name": use 1-128 characters of A-Z a-z 0-9 _ . -',
    ],
  },
  {
    name: "a name longer than 128 characters",
    given: { ...server({ a: { name: "x".repeat(129), inputSchema: obj } }), "annotations.json": { requireHints: false } },
    want: [`schemas/tools/a.json#/name: invalid tool name "${"x".repeat(129)}": use 1-128 characters of A-Z a-z 0-9 _ . -`],
  },
  {
    name: "names that collide on case-insensitive file systems or as type names",
    given: {
      ...server({ a: { name: "Search", inputSchema: obj }, b: { name: "search", inputSchema: obj }, c: { name: "get.user", inputSchema: obj }, d: { name: "get_user", inputSchema: obj } }),
      "annotations.json": { requireHints: false },
    },
    want: [
      'schemas/tools/b.json#/name: tool "search" and tool "Search" (schemas/tools/a.json) would share a handler file on case-insensitive file systems',
      'schemas/tools/d.json#/name: tool "get_user" and tool "get.user" (schemas/tools/c.json) would both be named GetUser in generated types',
    ],
  },
  {
    name: "inputSchema and outputSchema must be object schemas",
    given: server({
      a: { inputSchema: { type: "array" } },
      b: { inputSchema: { properties: {} } },
      c: { inputSchema: obj, outputSchema: { type: "string" } },
      d: { inputSchema: { $ref: "../defs/s.json" } },
    }, { "defs/s.json": { type: "string" } }),
    want: [
      'schemas/tools/a.json#/inputSchema: inputSchema must be an object schema: declare "type": "object" at its root (found "array")',
      'schemas/tools/b.json#/inputSchema: inputSchema must be an object schema: declare "type": "object" at its root',
      'schemas/tools/c.json#/outputSchema: outputSchema must be an object schema: declare "type": "object" at its root (found "string")',
      'schemas/tools/d.json#/inputSchema: inputSchema must be an object schema: declare "type": "object" at its root (found "string")',
    ],
  },
  {
    name: "tool file fields",
    given: server({ a: { inputSchema: obj, annotations: { readOnlyHint: true }, hidden: "yes" } }),
    want: ["schemas/tools/a.json#/annotations: unknown property: behaviour hints belong in annotations.json", "schemas/tools/a.json#/hidden: must be boolean"],
  },
  {
    name: "annotation manifest problems",
    given: {
      ...server({ a: { inputSchema: obj }, b: { inputSchema: obj }, c: { inputSchema: obj }, d: { inputSchema: obj } }),
      "annotations.json": {
        presets: { mine: { readOnlyHint: true, destructiveHint: true } },
        tools: { a: "nope", b: { readOnlyHint: true, destructiveHint: true }, c: ["readOnly", "alsoNope"], ghost: "readOnly" },
      },
    },
    want: [
      'schemas/annotations.json#/presets/mine: contradictory hints: readOnlyHint and destructiveHint are both true',
      'schemas/annotations.json#/tools/a: unknown preset "nope" (known: create, delete, external, mine, readOnly, update)',
      "schemas/annotations.json#/tools/b: contradictory hints: readOnlyHint and destructiveHint are both true",
      'schemas/annotations.json#/tools/c/1: unknown preset "alsoNope" (known: create, delete, external, mine, readOnly, update)',
      'schemas/annotations.json#/tools/ghost: no tool named "ghost" (known: a, b, c, d)',
      'schemas/tools/d.json#: tool "d" has no behaviour hints in schemas/annotations.json: add it under "tools" (e.g. "d": "readOnly"), or set "requireHints": false',
    ],
  },
  {
    name: "unknown hints",
    given: { ...server({ a: { inputSchema: obj } }), "annotations.json": { tools: { a: { readonlyHint: true } } } },
    want: ["schemas/annotations.json#/tools/a/readonlyHint: unknown hint: use title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint"],
  },
  {
    name: "examples that fail their own schema",
    given: server({
      a: {
        inputSchema: { type: "object", required: ["n"], properties: { n: { type: "integer" } }, examples: [{ n: "x" }] },
        outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
        examples: [{ input: { n: 1 }, output: { ok: 1 } }, { input: {} }],
      },
      b: { inputSchema: obj, examples: [{ input: {}, output: {} }] },
    }),
    want: [
      "schemas/tools/a.json#/examples/0/output: example does not match the outputSchema: /ok must be boolean",
      'schemas/tools/a.json#/examples/1/input: example does not match the inputSchema: (root) missing required property "n"',
      "schemas/tools/a.json#/inputSchema/examples/0: example does not match the inputSchema: /n must be integer",
      "schemas/tools/b.json#/examples/0/output: example has an output but the tool has no outputSchema",
    ],
  },
  {
    name: "unsupported dialects, $id and anchors",
    given: server({
      a: { inputSchema: { $schema: "http://json-schema.org/draft-04/schema#", type: "object" } },
      b: { inputSchema: { type: "object", properties: { x: { $id: "x", type: "string" }, y: { $dynamicRef: "#y" }, z: { $ref: "#nowhere" } } } },
    }),
    want: [
      'schemas/tools/a.json#/inputSchema/$schema: unsupported dialect "http://json-schema.org/draft-04/schema#": use JSON Schema 2020-12 (the default) or draft-07',
      "schemas/tools/b.json#/inputSchema/properties/x/$id: $id is only supported at the root of a defs/ file ($ref resolves against file paths)",
      'schemas/tools/b.json#/inputSchema/properties/y/$dynamicRef: $dynamicRef is not supported: use "$ref" with a JSON pointer or an $anchor',
    ],
  },
  {
    name: "resources, templates and prompts",
    given: server({ a: { inputSchema: obj } }, {
      "resources/dup1.json": { uri: "x://same", text: "a" },
      "resources/dup2.json": { uri: "x://same", text: "b", blob: "AA==" },
      "resources/dup3.json": { uri: "x://same", name: "third" },
      "resources/rel.json": { uri: "not a uri" },
      "resources/badtemplate.json": { uriTemplate: "x://{id" },
      "resources/exploded.json": { uriTemplate: "x://{/path*}" },
      "resources/vars.json": {
        uriTemplate: "x://items/{id}{?page}",
        variables: { idd: { schema: { type: "string" } }, page: { schema: { type: "integer", $ref: "#/x" } } },
        complete: { nope: "handler" },
      },
      "resources/fixed.json": { uriTemplate: "x://fixed" },
      "prompts/p.json": {
        arguments: [{ name: "a" }, { name: "a" }, { name: "b", schema: { type: "strin" } }],
        complete: { c: ["x"] },
      },
      "prompts/Bad Name.json": {},
    }),
    want: [
      'schemas/prompts/Bad Name.json#: invalid prompt name "Bad Name": use 1-128 characters of A-Z a-z 0-9 _ . -',
      'schemas/prompts/p.json#/arguments/1/name: duplicate argument "a"',
      'schemas/prompts/p.json#/arguments/2/schema/type: must be one of ["array","boolean","integer","null","number","object","string"]',
      'schemas/prompts/p.json#/complete/c: completion for "c", but there is no argument "c" (known: a, b)',
      'schemas/resources/badtemplate.json#/uriTemplate: invalid URI template: Parse Error: Expected a hierarchical variable name (\'.\'), or a modifier (\':\', \'*\'), or termination of the variable declaration (\',\', \'}\')',
      'schemas/resources/dup2.json#/blob: a resource has either "text" or "blob" contents, not both',
      'schemas/resources/dup3.json#/uri: duplicate resource URI "x://same" (also in schemas/resources/dup1.json)',
      'schemas/resources/exploded.json#/uriTemplate: variable "path" is exploded ({path*}): resource templates match single values only',
      'schemas/resources/fixed.json#/uriTemplate: a URI template needs at least one {variable}; use "uri" for a fixed resource',
      'schemas/resources/rel.json#/uri: not an absolute URI: "not a uri"',
      'schemas/resources/vars.json#/complete/nope: completion for "nope", but there is no variable "nope" (known: id, page)',
      "schemas/resources/vars.json#/variables/idd: no variable \"idd\" in the URI template (it has id, page)",
      "schemas/resources/vars.json#/variables/page/schema/$ref: $ref is not supported in variable and argument schemas",
    ],
  },
  {
    name: "patterns the linear-time engine cannot run, and invalid ones: every one at its own keyword",
    given: server(
      {
        a: {
          inputSchema: {
            type: "object",
            properties: {
              back: { type: "string", pattern: "^(a)\\1$" },
              ahead: { type: "string", pattern: "^(?!x)" },
              broken: { type: "string", pattern: "[" },
              fine: { type: "string", pattern: "^(a+)+$" },
              map: { type: "object", patternProperties: { "^(?<=x)y": {}, "^ok$": { type: "string", pattern: "\\k<n>(?<n>a)" } } },
              shared: { $ref: "../defs/ids.json" },
            },
          },
          outputSchema: { type: "object", properties: { out: { type: "string", pattern: "(?<!a)b" } } },
        },
      },
      {
        "defs/ids.json": { type: "string", pattern: "^(\\d)\\1$" },
        "resources/t.json": { uriTemplate: "x://t/{id}", variables: { id: { schema: { type: "string", pattern: "(?=a)" } } } },
        "prompts/p.json": { arguments: [{ name: "q", schema: { type: "string", pattern: "^[\\S]$" } }] },
      },
    ),
    want: [
      'schemas/defs/ids.json#/pattern: pattern "^(\\\\d)\\\\1$" cannot be matched in linear time: backreferences are not supported by the linear-time engine',
      'schemas/prompts/p.json#/arguments/0/schema/pattern: pattern "^[\\\\S]$" cannot be matched in linear time: \\S inside a character class is not supported by the linear-time engine',
      'schemas/resources/t.json#/variables/id/schema/pattern: pattern "(?=a)" cannot be matched in linear time: lookahead and lookbehind assertions are not supported by the linear-time engine',
      'schemas/tools/a.json#/inputSchema/properties/ahead/pattern: pattern "^(?!x)" cannot be matched in linear time: lookahead and lookbehind assertions are not supported by the linear-time engine',
      'schemas/tools/a.json#/inputSchema/properties/back/pattern: pattern "^(a)\\\\1$" cannot be matched in linear time: backreferences are not supported by the linear-time engine',
      'schemas/tools/a.json#/inputSchema/properties/broken/pattern: invalid regular expression "[": Invalid regular expression: /[/u: Unterminated character class',
      'schemas/tools/a.json#/inputSchema/properties/map/patternProperties/%5E(?%3C=x)y: pattern "^(?<=x)y" cannot be matched in linear time: lookahead and lookbehind assertions are not supported by the linear-time engine',
      'schemas/tools/a.json#/inputSchema/properties/map/patternProperties/%5Eok$/pattern: pattern "\\\\k<n>(?<n>a)" cannot be matched in linear time: backreferences are not supported by the linear-time engine',
      'schemas/tools/a.json#/outputSchema/properties/out/pattern: pattern "(?<!a)b" cannot be matched in linear time: lookahead and lookbehind assertions are not supported by the linear-time engine',
    ],
  },
  {
    name: "names that are members of Object.prototype need their own manifest entries",
    given: {
      ...server({ a: { inputSchema: obj } }),
      "tools/constructor.json": { inputSchema: obj },
      "tools/toString.json": { inputSchema: obj },
      "annotations.json": { tools: { a: "hasOwnProperty", toString: ["valueOf"] } },
    },
    want: [
      'schemas/annotations.json#/tools/a: unknown preset "hasOwnProperty" (known: create, delete, external, readOnly, update)',
      'schemas/annotations.json#/tools/toString/0: unknown preset "valueOf" (known: create, delete, external, readOnly, update)',
      'schemas/tools/constructor.json#: tool "constructor" has no behaviour hints in schemas/annotations.json: add it under "tools" (e.g. "constructor": "readOnly"), or set "requireHints": false',
    ],
  },
  {
    name: "task support is one of forbidden, optional, required; nothing else goes under execution",
    given: server({ a: { inputSchema: obj, execution: { taskSupport: "sometimes" } }, b: { inputSchema: obj, execution: { taskSupport: "required", ttl: 1 } }, c: { inputSchema: obj, execution: { taskSupport: "optional" } } }),
    want: [
      'schemas/tools/a.json#/execution/taskSupport: must be one of ["forbidden","optional","required"]',
      "schemas/tools/b.json#/execution/ttl: unknown property",
    ],
  },
  {
    name: "x-mcp-header: the constraints of the 2026-07-28 spec, each at its place",
    given: server(
      {
        a: {
          inputSchema: {
            type: "object",
            "x-mcp-header": "Root",
            properties: {
              spaced: { type: "string", "x-mcp-header": "My Header" },
              crlf: { type: "string", "x-mcp-header": "X\r\nInjected: 1" },
              empty: { type: "string", "x-mcp-header": "" },
              notString: { type: "string", "x-mcp-header": 7 },
              object: { type: "object", "x-mcp-header": "Obj" },
              number: { type: "number", "x-mcp-header": "Num" },
              untyped: { "x-mcp-header": "Untyped" },
              first: { type: "string", "x-mcp-header": "Dup" },
              second: { type: "integer", "x-mcp-header": "dup" },
              list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
              either: { anyOf: [{ type: "string", "x-mcp-header": "Branch" }] },
              nested: { type: "object", properties: { region: { type: "string", "x-mcp-header": "Region" } } },
              flag: { type: "boolean", "x-mcp-header": "Flag" },
            },
          },
          outputSchema: { type: "object", properties: { out: { type: "string", "x-mcp-header": "Out" } } },
        },
      },
      { "defs/x.json": { type: "object", properties: { y: { type: "string", "x-mcp-header": "Shared" } } } },
    ),
    want: [
      "schemas/defs/x.json#/properties/y/x-mcp-header: x-mcp-header only applies to properties of a tool's inputSchema",
      'schemas/tools/a.json#/inputSchema/properties/crlf/x-mcp-header: x-mcp-header "X\\r\\nInjected: 1" is not a valid header name: use letters, digits and ! # $ % & \' * + - . ^ _ ` | ~ (no spaces, control characters or delimiters)',
      'schemas/tools/a.json#/inputSchema/properties/either/anyOf/0/x-mcp-header: x-mcp-header must be on a property reached from the root through "properties" alone (not at the root, nor under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)',
      "schemas/tools/a.json#/inputSchema/properties/empty/x-mcp-header: x-mcp-header must be a non-empty string: the NAME of the header Mcp-Param-NAME",
      'schemas/tools/a.json#/inputSchema/properties/list/items/x-mcp-header: x-mcp-header must be on a property reached from the root through "properties" alone (not at the root, nor under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)',
      "schemas/tools/a.json#/inputSchema/properties/notString/x-mcp-header: x-mcp-header must be a non-empty string: the NAME of the header Mcp-Param-NAME",
      'schemas/tools/a.json#/inputSchema/properties/number/x-mcp-header: x-mcp-header is only allowed on a property of type "string", "integer" or "boolean" (its type is "number")',
      'schemas/tools/a.json#/inputSchema/properties/object/x-mcp-header: x-mcp-header is only allowed on a property of type "string", "integer" or "boolean" (its type is "object")',
      'schemas/tools/a.json#/inputSchema/properties/second/x-mcp-header: x-mcp-header "dup" is also declared at /inputSchema/properties/first (header names are case-insensitive)',
      'schemas/tools/a.json#/inputSchema/properties/spaced/x-mcp-header: x-mcp-header "My Header" is not a valid header name: use letters, digits and ! # $ % & \' * + - . ^ _ ` | ~ (no spaces, control characters or delimiters)',
      'schemas/tools/a.json#/inputSchema/properties/untyped/x-mcp-header: x-mcp-header is only allowed on a property of type "string", "integer" or "boolean" (its type is not declared)',
      'schemas/tools/a.json#/inputSchema/x-mcp-header: x-mcp-header must be on a property reached from the root through "properties" alone (not at the root, nor under items, anyOf/oneOf/allOf/not, if/then/else, additionalProperties or $defs)',
      "schemas/tools/a.json#/outputSchema/properties/out/x-mcp-header: x-mcp-header only applies to properties of a tool's inputSchema",
    ],
  },
  {
    name: "stray files",
    given: server({ a: { inputSchema: obj } }, { "notes.json": {}, "tools/README.md": "# tools", "defs/x.json.bak": "{}", ".DS_Store": "", "tools/.a.json.swp": "" }),
    want: [
      "schemas/defs/x.json.bak#: unexpected file: the schemas folder holds .json, .yaml and .yml files only (names starting with a dot are ignored)",
      "schemas/notes.json#: unexpected file: the layout is server.json, annotations.json, tools/*, resources/*, prompts/* and defs/**",
      "schemas/tools/README.md#: unexpected file: the schemas folder holds .json, .yaml and .yml files only (names starting with a dot are ignored)",
    ],
  },
  {
    name: "input nested too deep for any stage",
    given: server({ a: { inputSchema: deep(700) } }),
    want: [`schemas/tools/a.json#/inputSchema${"/properties/a".repeat(49)}/properties: nested more than 100 levels deep: flatten it, or move parts into defs/ and use $ref`],
  },
  {
    name: "lone surrogates in names and strings",
    given: server({ a: { inputSchema: { type: "object", properties: { "a\ud800b": { type: "string" } } } }, b: { description: "x\udc00", inputSchema: obj } }),
    want: [
      "schemas/tools/a.json#/inputSchema/properties/a%EF%BF%BDb: name with a lone surrogate (an unpaired \\ud800-\\udfff escape): not valid Unicode",
      "schemas/tools/b.json#/description: string with a lone surrogate (an unpaired \\ud800-\\udfff escape): not valid Unicode",
    ],
  },
  {
    name: "a $ref with broken percent-encoding",
    given: server({ a: { inputSchema: { type: "object", properties: { a: { $ref: "#/%E0%A4%A" }, b: { $ref: "../defs/x.json#/%ZZ" } } } } }, { "defs/x.json": {} }),
    want: [
      'schemas/tools/a.json#/inputSchema/properties/a/$ref: cannot resolve "#/%E0%A4%A": its fragment is not valid percent-encoding (a % must start an escape of UTF-8 bytes, such as %20)',
      'schemas/tools/a.json#/inputSchema/properties/b/$ref: cannot resolve "../defs/x.json#/%ZZ": its fragment is not valid percent-encoding (a % must start an escape of UTF-8 bytes, such as %20)',
    ],
  },
  {
    name: "a YAML alias bomb",
    given: server({ a: { inputSchema: obj } }, {
      "tools/b.yaml": ["a: &a [x, x, x, x, x, x, x, x, x]", ..."bcdefghi".split("").map((c, i) => `${c}: &${c} [${Array(9).fill("*" + "abcdefgh"[i]).join(", ")}]`), "inputSchema: {type: object}"].join("\n"),
    }),
    want: ["schemas/tools/b.yaml#: invalid YAML: its aliases expand too far (more than 100 alias nodes); write the values out, or share them with $ref"],
  },
  {
    name: "a missing schemas folder",
    given: {},
    want: ["schemas#: schemas folder not found"],
  },
];

describe("diagnostics", () => {
  it.each(cases)("$name", async ({ given, want }) => {
    const { dir, diagnostics } = await buildFiles(given);
    expect(diagnostics).toEqual(want);
    expect(existsSync(path.join(dir, "generated"))).toBe(false);
    expect(existsSync(path.join(dir, "src"))).toBe(false);
  });
});

describe("the schemas folder", () => {
  it("refuses symbolic links inside it, files or folders, and is itself read through one", async () => {
    const dir = await tempProject();
    await writeSchemas(dir, server({ a: { inputSchema: obj } }, { "../shared/b.json": { inputSchema: obj }, "../shared/defs/x.json": {} }));
    await symlink(path.join(dir, "shared/b.json"), path.join(dir, "schemas/tools/b.json"));
    await symlink(path.join(dir, "shared/defs"), path.join(dir, "schemas/defs"));
    await expect(build({ cwd: dir, cache: false })).rejects.toThrow(
      [
        "schemas/defs#: symbolic link: links are not followed in the schemas folder; put the file itself here",
        "schemas/tools/b.json#: symbolic link: links are not followed in the schemas folder; put the file itself here",
      ].join("\n"),
    );
    await rm(path.join(dir, "schemas/defs"));
    await rm(path.join(dir, "schemas/tools/b.json"));
    await rename(path.join(dir, "schemas"), path.join(dir, "real-schemas"));
    await symlink(path.join(dir, "real-schemas"), path.join(dir, "schemas"));
    expect((await build({ cwd: dir, cache: false })).counts.tools).toBe(1);
  });

  it("names each file from the working directory, wherever the folder is", async () => {
    const dir = await tempProject();
    await writeSchemas(dir, server({ a: { inputSchema: obj } }, { "tools/b.json": "{", "defs/deep/x.json": {} }));
    await mkdir(path.join(dir, "elsewhere"));
    const problem = (shown: string) => `${shown}tools/b.json#: invalid JSON (line 1, column 2): Expected property name or '}'`;
    const elsewhere = { out: path.join(dir, "out"), handlers: path.join(dir, "handlers") };
    for (const [cwd, schemas, shown] of [
      [dir, "schemas", "schemas/"],
      [path.join(dir, "schemas"), ".", ""],
      [path.join(dir, "elsewhere"), "../schemas", `${path.join(dir, "schemas").split(path.sep).join("/")}/`],
    ] as const) {
      await expect(build({ cwd, schemas, ...elsewhere, cache: false }), cwd).rejects.toThrow(problem(shown));
    }
    await writeSchemas(dir, { "tools/b.json": { inputSchema: obj }, "annotations.json": { tools: { a: "readOnly", b: "readOnly" } } });
    expect((await build({ cwd: path.join(dir, "schemas"), schemas: ".", ...elsewhere, cache: false })).counts.tools).toBe(2);
  });
});

describe("warnings", () => {
  it("an unknown format is an annotation: the build goes on, warns at its place, and known formats still validate", async () => {
    const { dir, result } = await buildFiles(
      server({ a: { inputSchema: { type: "object", properties: { blob: { type: "string", format: "json" }, to: { type: "string", format: "email" } } } } }),
    );
    expect(result?.warnings.map(formatDiagnostic)).toEqual([
      'schemas/tools/a.json#/inputSchema/properties/blob/format: warning: unknown format "json": kept as an annotation, not validated',
    ]);
    const { input } = (await import(pathToFileURL(path.join(dir, "generated/validators/a.gen.js")).href)) as { input: (value: unknown) => boolean };
    expect(input({ blob: "not json at all", to: "ada@example.com" })).toBe(true);
    expect(input({ blob: "{}", to: "not an address" })).toBe(false);
    expect((await readFile(path.join(dir, "generated/registry.gen.ts"), "utf8")).includes('"format":"json"')).toBe(true);
  });

  it("a recursive $ref is a note at the ref, through files and inside a tool's own schema; the build goes on", async () => {
    const node = { type: "object", properties: { children: { type: "array", items: { $ref: "#" } }, next: { $ref: "other.json" } } };
    const { result } = await buildFiles(
      server(
        {
          a: { inputSchema: { type: "object", properties: { tree: { $ref: "../defs/node.json" }, flat: { $ref: "#/$defs/leaf" } }, $defs: { leaf: { type: "string" } } } },
          b: { inputSchema: { type: "object", properties: { list: { $ref: "#/$defs/list" } }, $defs: { list: { type: "object", properties: { rest: { $ref: "#/$defs/list" } } } } } },
        },
        { "defs/node.json": node, "defs/other.json": { type: "object", properties: { back: { $ref: "node.json" } } } },
      ),
    );
    const note = "warning: recursive $ref: the schema refers to itself, which JSON Schema allows, but some clients (e.g. Mastra 0.14) drop tools with recursive schemas without a word";
    expect(result?.warnings.map(formatDiagnostic)).toEqual([
      `schemas/defs/node.json#/properties/children/items/$ref: ${note}`,
      `schemas/defs/node.json#/properties/next/$ref: ${note}`,
      `schemas/defs/other.json#/properties/back/$ref: ${note}`,
      `schemas/tools/b.json#/inputSchema/$defs/list/properties/rest/$ref: ${note}`,
    ]);
  });
});
