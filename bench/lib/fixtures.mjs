/**
 * Deterministic benchmark fixtures: a schemas/ folder with N tools, a handful of shared defs files and an
 * annotation manifest. Every choice comes from one seeded PRNG, so the same (size, seed) gives the same bytes.
 * Every generated example is built alongside its schema, so it validates by construction (the compiler
 * checks examples against their schemas and would reject the fixture otherwise).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/** mulberry32: small, fast, good enough for picking shapes. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng = {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** Picks by weight from `[[weight, value], ...]`. */
    weighted: (pairs) => {
      let r = next() * pairs.reduce((s, [w]) => s + w, 0);
      for (const [w, v] of pairs) if ((r -= w) < 0) return v;
      return pairs.at(-1)[1];
    },
    sample: (list, n) => {
      const copy = [...list];
      for (let i = copy.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy.slice(0, n);
    },
  };
  return rng;
}

const WORDS = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua".split(" ");
const text = (rng, min, max) => {
  let s = "";
  while (s.length < min) s += (s ? " " : "") + rng.pick(WORDS);
  return s.slice(0, rng.int(min, Math.min(max, s.length)));
};

const FORMATS = {
  email: ["ada@example.com", "grace.hopper@example.org"],
  uri: ["https://example.com/docs", "https://api.example.org/v1/items?limit=5"],
  date: ["2024-05-01", "2025-12-31"],
  "date-time": ["2024-05-01T10:00:00Z", "2025-01-15T08:30:00+01:00"],
  uuid: ["123e4567-e89b-12d3-a456-426614174000", "9b2f0c1e-5a4d-4c7b-8e3f-2d1a0b9c8e7f"],
  ipv4: ["192.0.2.1", "198.51.100.23"],
  hostname: ["api.example.com", "db-1.internal.example.net"],
};

const PATTERNS = [
  ["^[A-Z]{3}-[0-9]{4}$", ["ABC-1234", "XYZ-0007"], "An order reference such as ABC-1234."],
  ["^[a-z][a-z0-9_]{2,31}$", ["user_42", "build_bot"], "A lower-case handle."],
  ["^\\+?[0-9]{7,15}$", ["+4915112345678", "5550100"], "A phone number, digits only."],
  ["^#[0-9a-fA-F]{6}$", ["#1a2b3c", "#FFAA00"], "A hex colour."],
  ["^[a-z0-9]+(?:-[a-z0-9]+)*$", ["release-notes", "q3-plan"], "A URL slug."],
  ["^v[0-9]+\\.[0-9]+\\.[0-9]+$", ["v1.2.3", "v10.0.1"], "A semantic version with a leading v."],
];

const ENUMS = [
  ["open", "in_progress", "blocked", "done"],
  ["low", "normal", "high", "urgent"],
  ["asc", "desc"],
  ["json", "csv", "xml", "yaml", "parquet"],
  ["draft", "review", "published", "archived", "deleted", "restored"],
  ["eu-west-1", "eu-central-1", "us-east-1", "us-west-2", "ap-southeast-1"],
];

const NAMES = (
  "query limit cursor id name email tags status priority since until owner address amount filters items notes url host ip " +
  "sort order includeArchived dryRun metadata labels region count threshold ratio format title body comment reason project " +
  "team assignee reviewers due version color phone handle retries timeoutMs page fields exclude path branch channel"
).split(" ");

/** The shared definitions; each entry has its file content and a sample value per pointer it is used at. */
function defsFiles() {
  return {
    "address.json": {
      type: "object",
      description: "A postal address.",
      required: ["street", "city", "country"],
      additionalProperties: false,
      properties: {
        street: { type: "string", minLength: 1, maxLength: 200 },
        city: { type: "string", minLength: 1, maxLength: 100 },
        postalCode: { type: "string", pattern: "^[0-9A-Z -]{3,10}$" },
        country: { type: "string", pattern: "^[A-Z]{2}$", description: "ISO 3166-1 alpha-2 code." },
      },
    },
    "person.json": {
      type: "object",
      description: "Someone who can own, review or be assigned work.",
      required: ["id", "name"],
      additionalProperties: false,
      properties: {
        id: { $ref: "common.json#/$defs/uuid" },
        name: { type: "string", minLength: 1, maxLength: 100 },
        email: { type: "string", format: "email" },
        address: { $ref: "address.json" },
      },
    },
    "money.json": {
      type: "object",
      description: "An amount of money in minor units.",
      required: ["amountCents", "currency"],
      additionalProperties: false,
      properties: {
        amountCents: { type: "integer", minimum: 0, maximum: 1000000000000 },
        currency: { enum: ["EUR", "USD", "GBP", "JPY", "CHF"] },
      },
    },
    "common.json": {
      $defs: {
        uuid: { type: "string", format: "uuid" },
        slug: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", minLength: 1, maxLength: 64 },
        timestamp: { type: "string", format: "date-time" },
        tag: {
          type: "object",
          required: ["name"],
          additionalProperties: false,
          properties: { name: { $ref: "#/$defs/slug" }, color: { type: "string", pattern: "^#[0-9a-fA-F]{6}$" } },
        },
      },
    },
    "pagination.json": {
      $defs: {
        page: {
          type: "object",
          additionalProperties: false,
          properties: {
            cursor: { type: "string", maxLength: 512 },
            limit: { type: "integer", minimum: 1, maximum: 500, default: 50 },
          },
        },
        pageInfo: {
          type: "object",
          required: ["total"],
          additionalProperties: false,
          properties: { nextCursor: { type: ["string", "null"] }, total: { type: "integer", minimum: 0 } },
        },
      },
    },
    "audit.json": {
      type: "object",
      description: "Who changed something, and when.",
      required: ["createdAt", "createdBy"],
      additionalProperties: false,
      properties: {
        createdAt: { $ref: "common.json#/$defs/timestamp" },
        createdBy: { $ref: "person.json" },
        updatedAt: { $ref: "common.json#/$defs/timestamp" },
      },
    },
    "tree.json": {
      type: "object",
      description: "A node of a folder tree.",
      required: ["name"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1 },
        children: { type: "array", items: { $ref: "#" }, maxItems: 100 },
      },
    },
  };
}

const PERSON = { id: FORMATS.uuid[0], name: "Ada Lovelace", email: "ada@example.com", address: { street: "1 Main St", city: "London", country: "GB" } };
/** Refs a tool property may use, each with a valid sample. */
const DEF_REFS = [
  ["../defs/address.json", { street: "12 High Street", city: "Leeds", postalCode: "LS1 4AP", country: "GB" }],
  ["../defs/person.json", PERSON],
  ["../defs/money.json", { amountCents: 1999, currency: "EUR" }],
  ["../defs/common.json#/$defs/uuid", FORMATS.uuid[1]],
  ["../defs/common.json#/$defs/slug", "q3-plan"],
  ["../defs/common.json#/$defs/timestamp", "2024-05-01T10:00:00Z"],
  ["../defs/common.json#/$defs/tag", { name: "infra", color: "#00ff88" }],
  ["../defs/pagination.json#/$defs/page", { cursor: "abc", limit: 20 }],
  ["../defs/audit.json", { createdAt: "2024-05-01T10:00:00Z", createdBy: PERSON }],
  ["../defs/tree.json", { name: "root", children: [{ name: "src", children: [{ name: "index.ts" }] }] }],
];

/**
 * How big the tools are. `reference` is calibrated on the workload the build-speed targets were set
 * against (1,000 tools whose validators, compiled by ajv with its default options, come to about 6.3 MB);
 * `heavy` has about twice that: more properties per tool, more nesting, more refs into defs/.
 */
export const PROFILES = {
  reference: { propertyCounts: [[3, 1], [4, 2], [3, 3], [2, 4], [1, 5]], nested: 0.03, refWeight: 1, outputChance: 0.2, localDef: 0.1 },
  heavy: { propertyCounts: [[1, 1], [3, 2], [4, 3], [4, 4], [3, 5], [2, 6], [1, 8], [1, 10]], nested: 0.2, refWeight: 6, outputChance: 0.4, localDef: 0.25 },
};

/**
 * One property: `[schema, sample]`. `depth` limits nesting; `refs` says whether defs refs are allowed
 * (draft-07 tools stay self-contained).
 */
function property(rng, depth, refs, profile) {
  const kind = rng.weighted([
    [14, "string"],
    [8, "format"],
    [6, "pattern"],
    [7, "integer"],
    [4, "number"],
    [5, "boolean"],
    [8, "enum"],
    [6, "stringArray"],
    [depth > 0 ? 3 : 0, "objectArray"],
    [depth > 0 ? 3 : 0, "object"],
    [refs ? profile.refWeight : 0, "ref"],
    [2, "nullable"],
    [depth > 0 ? 1 : 0, "oneOf"],
  ]);
  const described = (schema) => (rng.chance(0.6) ? { ...schema, description: text(rng, 12, 80) + "." } : schema);
  switch (kind) {
    case "string": {
      const min = rng.int(0, 3);
      const max = rng.pick([16, 64, 200, 1000, 4096]);
      return [described({ type: "string", minLength: min, maxLength: max }), text(rng, Math.max(min, 1), Math.min(max, 40))];
    }
    case "format": {
      const format = rng.pick(Object.keys(FORMATS));
      return [described({ type: "string", format }), rng.pick(FORMATS[format])];
    }
    case "pattern": {
      const [pattern, samples, description] = rng.pick(PATTERNS);
      return [{ type: "string", pattern, description }, rng.pick(samples)];
    }
    case "integer": {
      const min = rng.pick([0, 1, -100]);
      const max = min + rng.pick([10, 100, 1000, 86400]);
      const schema = { type: "integer", minimum: min, maximum: max };
      if (rng.chance(0.3)) schema.default = min;
      return [described(schema), rng.int(min, max)];
    }
    case "number": {
      const schema = { type: "number", exclusiveMinimum: 0, maximum: rng.pick([1, 100, 1e6]) };
      return [described(schema), schema.maximum / 2];
    }
    case "boolean":
      return [described({ type: "boolean", ...(rng.chance(0.5) && { default: false }) }), rng.chance(0.5)];
    case "enum": {
      const values = rng.pick(ENUMS);
      return [described({ enum: values }), rng.pick(values)];
    }
    case "stringArray": {
      const max = rng.pick([5, 20, 100]);
      const schema = { type: "array", items: { type: "string", minLength: 1, maxLength: 64 }, uniqueItems: true, maxItems: max };
      if (rng.chance(0.5)) schema.minItems = 1;
      return [described(schema), ["alpha", "beta", "gamma"].slice(0, rng.int(1, 3))];
    }
    case "objectArray": {
      const [item, sample] = object(rng, depth - 1, refs, rng.int(2, 4), profile);
      return [described({ type: "array", items: item, maxItems: rng.pick([10, 50, 1000]) }), [sample]];
    }
    case "object": {
      const [schema, sample] = object(rng, depth - 1, refs, rng.int(2, 5), profile);
      return [described(schema), sample];
    }
    case "ref": {
      const [$ref, sample] = rng.pick(DEF_REFS);
      return [{ $ref }, structuredClone(sample)];
    }
    case "nullable": {
      const format = rng.pick(["date", "date-time", "email"]);
      return [described({ type: ["string", "null"], format }), rng.chance(0.5) ? null : FORMATS[format][0]];
    }
    case "oneOf": {
      const a = { type: "object", required: ["kind", "id"], additionalProperties: false, properties: { kind: { const: "byId" }, id: { type: "string", minLength: 1 } } };
      const b = {
        type: "object",
        required: ["kind", "query"],
        additionalProperties: false,
        properties: { kind: { const: "bySearch" }, query: { type: "string", minLength: 1, maxLength: 200 }, limit: { type: "integer", minimum: 1, maximum: 100 } },
      };
      return [described({ oneOf: [a, b] }), rng.chance(0.5) ? { kind: "byId", id: "42" } : { kind: "bySearch", query: "open bugs" }];
    }
  }
  throw new Error(`unknown kind ${kind}`);
}

/** An object schema with `count` properties, about half required; the sample has every required one. */
function object(rng, depth, refs, count, profile) {
  const properties = {};
  const sample = {};
  const required = [];
  const names = rng.sample(NAMES, count);
  for (const name of names) {
    const [schema, value] = property(rng, depth, refs, profile);
    properties[name] = schema;
    const isRequired = rng.chance(0.45);
    if (isRequired) required.push(name);
    if (isRequired || rng.chance(0.5)) sample[name] = value;
  }
  const schema = { type: "object", ...(required.length && { required }), additionalProperties: false, properties };
  return [schema, sample];
}

const RESOURCES = "orders invoices customers tickets repos builds deployments users teams projects files pages alerts metrics jobs".split(" ");
const VERBS = ["list", "get", "create", "update", "delete", "search", "export", "archive", "sync", "count"];
const PRESET_FOR = { list: "readOnly", get: "readOnly", search: "readOnly", count: "pure", export: "readOnly", create: "create", update: "update", delete: "delete", archive: "update", sync: "sideEffect" };

/** The tool file for tool number `i`: `{ name, file, preset }`. */
function tool(rng, i, profile) {
  const resource = rng.pick(RESOURCES);
  const verb = rng.pick(VERBS);
  const name = `${resource}_${verb}_${String(i).padStart(4, "0")}`;
  const draft07 = rng.chance(0.03);
  const [input, inputSample] = object(rng, rng.chance(profile.nested) ? 2 : 1, !draft07, rng.weighted(profile.propertyCounts), profile);
  if (draft07) input.$schema = "http://json-schema.org/draft-07/schema#";
  const samples = [inputSample];
  // A local definition referenced from the tool's own schema.
  if (rng.chance(profile.localDef)) {
    const container = draft07 ? "definitions" : "$defs";
    const [filter, filterSample] = object(rng, 0, false, rng.int(2, 4), profile);
    input[container] = { filter };
    input.properties.filter = { $ref: `#/${container}/filter` };
    if (rng.chance(0.5)) {
      input.required = [...(input.required ?? []), "filter"];
      samples[0] = { ...inputSample, filter: filterSample };
    }
  }
  const file = {
    title: `${verb[0].toUpperCase()}${verb.slice(1)} ${resource}`,
    description: `${verb[0].toUpperCase()}${verb.slice(1)}s ${resource}. ${text(rng, 20, 160)}.`,
    ...(i % 97 === 96 && { hidden: true }),
    inputSchema: input,
  };
  let outputSample;
  if (rng.chance(profile.outputChance)) {
    const [output, sample] = rng.chance(0.3)
      ? [{ $ref: rng.pick(["../defs/person.json", "../defs/audit.json", "../defs/tree.json"]) }, undefined]
      : object(rng, rng.chance(0.3) ? 1 : 0, !draft07, rng.int(1, 6), profile);
    if (draft07 && output.$ref) {
      file.outputSchema = { type: "object", properties: { ok: { type: "boolean" } } };
      outputSample = { ok: true };
    } else {
      file.outputSchema = output;
      outputSample = sample;
    }
  }
  const exampleCount = rng.weighted([[3, 0], [5, 1], [2, 2]]);
  if (exampleCount) {
    file.examples = Array.from({ length: exampleCount }, (_, k) => ({
      ...(rng.chance(0.5) && { description: k === 0 ? `A typical ${verb} call.` : "The same call, retried." }),
      input: samples[0],
      ...(k === 0 && outputSample !== undefined && { output: outputSample }),
    }));
  }
  const preset = PRESET_FOR[verb];
  const entry = rng.weighted([
    [6, preset],
    [2, { preset, title: file.title }],
    [preset === "readOnly" ? 2 : 0, [preset, "external"]],
  ]);
  return { name, file, entry };
}

/**
 * Writes `<dir>/schemas/` for `size` tools of the given profile (see PROFILES); returns the tool names
 * (sorted) and what the fixture is made of.
 */
export function writeFixture(dir, size, seed = 1, profileName = "reference") {
  const profile = PROFILES[profileName];
  if (!profile) throw new Error(`unknown fixture profile ${profileName}`);
  const rng = prng(seed * 1_000_003 + size);
  const schemas = path.join(dir, "schemas");
  rmSync(schemas, { recursive: true, force: true });
  mkdirSync(path.join(schemas, "tools"), { recursive: true });
  mkdirSync(path.join(schemas, "defs"), { recursive: true });
  let bytes = 0;
  const put = (rel, value) => {
    const body = JSON.stringify(value, null, 2) + "\n";
    bytes += Buffer.byteLength(body);
    writeFileSync(path.join(schemas, rel), body);
  };
  put("server.json", {
    name: `bench-${size}`,
    version: "1.0.0",
    title: `Benchmark server with ${size} tools`,
    description: "Generated by bench/build.mjs.",
    instructions: "List before you change anything.",
  });
  for (const [file, value] of Object.entries(defsFiles())) put(`defs/${file}`, value);
  const tools = {};
  const names = [];
  const stats = { topLevelProperties: 0, schemaNodes: 0, defRefs: 0, withOutput: 0, withExamples: 0, draft07: 0, hidden: 0 };
  for (let i = 0; i < size; i++) {
    const t = tool(rng, i, profile);
    put(`tools/${t.name}.json`, t.file);
    tools[t.name] = t.entry;
    names.push(t.name);
    stats.topLevelProperties += Object.keys(t.file.inputSchema.properties).length;
    for (const schema of [t.file.inputSchema, t.file.outputSchema]) countNodes(schema, stats);
    if (t.file.outputSchema) stats.withOutput++;
    if (t.file.examples) stats.withExamples++;
    if (t.file.inputSchema.$schema) stats.draft07++;
    if (t.file.hidden) stats.hidden++;
  }
  put("annotations.json", {
    presets: {
      pure: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
      sideEffect: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    tools,
  });
  return {
    tools: names.sort(),
    defsFiles: Object.keys(defsFiles()).length,
    inputBytes: bytes,
    perTool: {
      topLevelProperties: round(stats.topLevelProperties / size),
      schemaNodes: round(stats.schemaNodes / size),
      defRefs: round(stats.defRefs / size),
    },
    withOutputSchema: stats.withOutput,
    withExamples: stats.withExamples,
    draft07: stats.draft07,
    hidden: stats.hidden,
  };
}

const round = (x) => Math.round(x * 10) / 10;

/** Counts typed/ref/enum/combinator nodes (roughly: every place a validator checks something) and refs into defs/. */
function countNodes(schema, stats) {
  if (schema === null || typeof schema !== "object") return;
  if (Array.isArray(schema)) return schema.forEach((s) => countNodes(s, stats));
  if (schema.type || schema.$ref || schema.enum || schema.oneOf || schema.const !== undefined) stats.schemaNodes++;
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("../defs/")) stats.defRefs++;
  for (const [key, value] of Object.entries(schema)) if (key !== "enum" && key !== "default") countNodes(value, stats);
}

/**
 * Edits one tool's inputSchema (a description and a bound inside it), as a developer would; each `revision`
 * gives different bytes, so the content-hash cache misses for that tool and only that tool.
 */
export function editTool(dir, name, revision) {
  const file = path.join(dir, "schemas", "tools", `${name}.json`);
  const value = JSON.parse(readFileSync(file, "utf8"));
  value.inputSchema.description = `Edited by the benchmark (revision ${revision}).`;
  value.inputSchema.maxProperties = 50 + revision;
  writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}
