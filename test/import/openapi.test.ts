/**
 * `mcpgen import openapi` through the real CLI on two hand-written descriptions (3.0 in YAML, 3.1 in
 * JSON): tool names, merged inputs, outputs, defs, 3.0 keywords turned into JSON Schema 2020-12, hints,
 * notes for what is left out; the generated handlers call a loopback API (base URL and credentials from
 * the environment) when the built server is driven by the SDK client; a broken description writes nothing.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile, fakeApi, freshDir, importOpenApi, withServer, workOf, type Ran } from "./openapi-run.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const json = (dir: string, file: string): Record<string, unknown> => JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Record<string, unknown>;

const WORK = workOf(import.meta.filename);
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

describe("mcpgen import openapi: OpenAPI 3.0 (YAML)", () => {
  const spec = path.join(FIXTURES, "petstore-3.0.yaml");
  let dir: string;
  let ran: Ran;
  beforeAll(async () => {
    dir = freshDir(WORK, "petstore");
    ran = await importOpenApi(dir, [spec, "-o", "schemas", "-g", "generated", "-H", "handlers"]);
  }, 60_000);
  const schemas = () => path.join(dir, "schemas");

  it("writes one tool per operation, named within MCP's rules and unique", () => {
    expect(ran.code).toBe(0);
    const names = readdirSync(path.join(schemas(), "tools")).map((f) => (json(path.join(schemas(), "tools"), f).name as string)).sort();
    expect(names).toEqual([
      "createPet",
      "delete_pets_petId",
      "get_pets_petId_a-very-long-path-segment-that-goes-on_and-on-and-",
      "listPets",
      "show_pet_by_id",
      "show_pet_by_id_2",
      "updatePet",
    ]);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_.-]{1,64}$/);
    expect(ran.stderr).toContain("imported Pet Store (7 operations): 7 tools");
  });

  it("merges path, query and header parameters and an object body; a clashing body goes under `body`", () => {
    const list = json(schemas(), "tools/listPets.json");
    expect(list).toMatchObject({ title: "List all pets" });
    expect(list.inputSchema).toEqual({
      type: "object",
      properties: {
        limit: { type: "integer", minimum: 1, exclusiveMaximum: 100, description: "How many pets to list at most." },
        "X-Request-Id": { type: "string", description: "Correlation id." },
      },
      required: ["X-Request-Id"],
    });
    expect(json(schemas(), "tools/createPet.json").inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" }, tag: { type: "string" } },
      required: ["name"],
    });
    // The body has a property petId, as has the path: the body stays whole, optional as the spec says.
    expect(json(schemas(), "tools/updatePet.json").inputSchema).toEqual({
      type: "object",
      properties: {
        petId: { type: "integer", description: "The pet's id." },
        body: { type: "object", properties: { petId: { type: "integer" }, name: { type: "string" } } },
      },
      required: ["petId"],
    });
  });

  it("takes the output from the 2xx JSON response when it is an object; an array or text response has none", () => {
    expect(json(schemas(), "tools/show_pet_by_id.json").outputSchema).toEqual({ $ref: "../defs/Pet.json" });
    expect(json(schemas(), "tools/createPet.json").outputSchema).toEqual({ $ref: "../defs/Pet.json" });
    expect(json(schemas(), "tools/listPets.json").outputSchema).toBeUndefined();
    expect(json(schemas(), "tools/get_pets_petId_a-very-long-path-segment-that-goes-on_and-on-and-.json").outputSchema).toBeUndefined();
  });

  it("writes components/schemas as defs in JSON Schema 2020-12: nullable, example, boolean exclusive bounds", () => {
    expect(readdirSync(path.join(schemas(), "defs")).sort()).toEqual(["NewPet.json", "Owner.json", "Pet.json"]);
    expect(json(schemas(), "defs/Pet.json")).toEqual({
      type: "object",
      required: ["id", "name"],
      properties: {
        id: { type: "integer", format: "int64", examples: [7] },
        name: { type: "string", description: "The pet's name." },
        tag: { type: ["string", "null"] },
        owner: { anyOf: [{ allOf: [{ $ref: "./Owner.json" }] }, { type: "null" }] },
      },
    });
  });

  it("puts hints from the HTTP method in the manifest", () => {
    const hints = (json(schemas(), "annotations.json").tools ?? {}) as Record<string, Record<string, boolean>>;
    expect(hints.listPets).toMatchObject({ readOnlyHint: true });
    expect(hints.show_pet_by_id_2).toMatchObject({ readOnlyHint: true }); // HEAD
    expect(hints.delete_pets_petId).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(hints.updatePet).toMatchObject({ readOnlyHint: false, idempotentHint: true });
    expect(hints.createPet).toMatchObject({ readOnlyHint: false });
    expect(hints.createPet!.idempotentHint).toBeUndefined();
  });

  it("says what it leaves out, one note each, at its place in the description", () => {
    const at = `${spec}#`; // the description as it was named on the command line
    for (const note of [
      `${at}/components/schemas/Owner/properties/code/pattern: pattern "^(?!x)[a-z]+$" needs backtracking`,
      `${at}/components/securitySchemes/sessionCookie: apiKey in cookie is not filled in`,
      `${at}/paths/~1pets/get: cookie parameter "session" is not sent`,
      `${at}/paths/~1pets/post/requestBody/content/multipart~1form-data: only JSON request bodies are sent`,
      `${at}/paths/~1pets/post/callbacks: callbacks are not imported`,
    ])
      expect(ran.stderr).toContain(`note: ${note}`);
  });

  it("writes handlers that call the API: base URL and bearer token from the environment, errors as tool errors", async () => {
    expect(ran.stderr).toContain("PET_STORE_BASE_URL: Base URL of the API");
    expect(ran.stderr).toContain("PET_STORE_BEARERAUTH: bearerAuth: bearer credential");
    await compile(dir);
    const api = await fakeApi((request) =>
      request.url.startsWith("/v1/pets/404") ? { status: 404, text: "no such pet" } : request.method === "POST" ? { status: 201, json: { id: 9, name: "Rex" } } : { status: 200, json: [{ id: 1, name: "Tom" }] },
    );
    try {
      await withServer(dir, { PET_STORE_BASE_URL: `${api.url}/v1`, PET_STORE_BEARERAUTH: "s3cret" }, async (client) => {
        const created = await client.callTool({ name: "createPet", arguments: { name: "Rex" } });
        expect(created.structuredContent).toEqual({ id: 9, name: "Rex" });
        expect(api.requests[0]).toMatchObject({ method: "POST", url: "/v1/pets", body: JSON.stringify({ name: "Rex" }) });
        expect(api.requests[0]!.headers).toMatchObject({ authorization: "Bearer s3cret", "content-type": "application/json" });

        const listed = await client.callTool({ name: "listPets", arguments: { limit: 5, "X-Request-Id": "r-1" } });
        expect(listed.isError).toBeFalsy();
        expect(listed.content).toEqual([{ type: "text", text: JSON.stringify([{ id: 1, name: "Tom" }]) }]);
        expect(api.requests[1]).toMatchObject({ method: "GET", url: "/v1/pets?limit=5" });
        expect(api.requests[1]!.headers["x-request-id"]).toBe("r-1");

        const updated = await client.callTool({ name: "updatePet", arguments: { petId: 3, body: { petId: 3, name: "Max" } } });
        expect(updated.isError).toBeFalsy();
        expect(api.requests[2]).toMatchObject({ method: "PUT", url: "/v1/pets/3", body: JSON.stringify({ petId: 3, name: "Max" }) });

        const missing = await client.callTool({ name: "show_pet_by_id", arguments: { petId: 404 } });
        expect(missing.isError).toBe(true);
        expect(JSON.stringify(missing.content)).toMatch(/GET \/v1\/pets\/404 answered 404 Not Found: no such pet/);
      });
    } finally {
      await api.close();
    }
  }, 60_000);

  it("never writes a handler over an existing file", async () => {
    const again = freshDir(WORK, "petstore-mine");
    const { writeFileSync, mkdirSync } = await import("node:fs");
    mkdirSync(path.join(again, "handlers"), { recursive: true });
    writeFileSync(path.join(again, "handlers/listPets.ts"), "// mine\n");
    writeFileSync(path.join(again, "handlers/_openapi.ts"), "// mine too\n");
    const result = await importOpenApi(again, [spec, "-o", "schemas", "-g", "generated", "-H", "handlers"]);
    expect(result.code).toBe(0);
    expect(readFileSync(path.join(again, "handlers/listPets.ts"), "utf8")).toBe("// mine\n");
    expect(readFileSync(path.join(again, "handlers/_openapi.ts"), "utf8")).toBe("// mine too\n");
    expect(readFileSync(path.join(again, "handlers/createPet.ts"), "utf8")).toContain("callOperation(operation, input");
  }, 60_000);
});

describe("mcpgen import openapi: OpenAPI 3.1 (JSON)", () => {
  const spec = path.join(FIXTURES, "notes-3.1.json");

  it("keeps 3.1 schemas, puts a non-object body under `body`, and fills in apiKey (query) and basic credentials", async () => {
    const dir = freshDir(WORK, "notes");
    const ran = await importOpenApi(dir, [spec, "--env-prefix", "MYNOTES", "-o", "schemas", "-g", "generated", "-H", "handlers"]);
    expect(ran.code).toBe(0);
    const schemas = path.join(dir, "schemas");
    expect(json(schemas, "defs/Note.json").properties).toEqual({
      id: { type: "string", const: "n1", examples: ["n1"] },
      text: { type: "string", description: "The note's text." },
      due: { type: ["string", "null"], format: "date" },
      label: { $ref: "./Label.json", description: "A label, when set." },
    });
    expect(json(schemas, "tools/getNote.json")).toMatchObject({ description: "Reads one note.", outputSchema: { $ref: "../defs/Note.json" } });
    const tag = json(schemas, "tools/tagNote.json");
    expect(tag.inputSchema).toEqual({
      type: "object",
      properties: { id: { type: "string" }, body: { type: "array", items: { $ref: "../defs/Label.json" }, description: "The labels to set." } },
      required: ["id", "body"],
    });
    expect(tag.outputSchema).toBeUndefined(); // the 2XX response is an integer
    expect(json(schemas, "annotations.json").tools).toMatchObject({ getNote: { readOnlyHint: true }, tagNote: { readOnlyHint: false } });
    expect(ran.stderr).toContain("#/components/securitySchemes/oauth: oauth2 is not filled in");
    expect(ran.stderr).toContain("#/webhooks/noteChanged: webhooks are not imported");
    expect(ran.stderr).toContain("MYNOTES_APIKEY: apiKey: API key (query key)");

    await compile(dir);
    const api = await fakeApi((request) => (request.method === "GET" ? { status: 200, json: { id: "n1", text: "hi", due: null } } : { status: 200, json: 2 }));
    try {
      await withServer(dir, { MYNOTES_BASE_URL: `${api.url}/api/`, MYNOTES_APIKEY: "k 1", MYNOTES_BASIC: "ann:pw" }, async (client) => {
        const note = await client.callTool({ name: "getNote", arguments: { id: "a/b" } });
        expect(note.structuredContent).toEqual({ id: "n1", text: "hi", due: null });
        expect(api.requests[0]).toMatchObject({ method: "GET", url: "/api/notes/a%2Fb?key=k+1" });
        expect(api.requests[0]!.headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`);
        const tagged = await client.callTool({ name: "tagNote", arguments: { id: "n1", body: ["red"] } });
        expect(tagged.content).toEqual([{ type: "text", text: "2" }]);
        expect(api.requests[1]).toMatchObject({ method: "PATCH", url: "/api/notes/n1", body: '["red"]' });
        expect(api.requests[1]!.headers.authorization).toBeUndefined(); // tagNote's own security (oauth2) replaces the global one
      });
    } finally {
      await api.close();
    }
  }, 60_000);
});

describe("mcpgen import openapi: a broken description", () => {
  it("reports each problem as spec#/pointer: message, exits 1 and writes nothing", async () => {
    const dir = freshDir(WORK, "broken");
    const ran = await importOpenApi(dir, [path.join(FIXTURES, "broken-3.0.yaml"), "-o", "schemas", "-g", "generated", "-H", "handlers"]);
    expect(ran.code).toBe(1);
    expect(ran.stderr).toMatch(/broken-3\.0\.yaml#\/paths\/~1things\/get\/parameters\/0\/in: must be equal to one of the allowed values/);
    expect(ran.stderr).toMatch(/nothing was written/);
    expect(readdirSync(dir)).toEqual([]);
    const missing = await importOpenApi(dir, ["no-such-spec.yaml"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^no-such-spec\.yaml#: /m);
    expect(existsSync(path.join(dir, "schemas"))).toBe(false);
  }, 60_000);
});
