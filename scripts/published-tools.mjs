// Refreshes test/lint/fixtures/published/*.json: runs each published server pinned in package.json's
// devDependencies over stdio with the SDK client and saves what it declares (tools/list, prompts/list,
// resources/list, resources/templates/list) as a saved list that `mcpgen lint` and `mcpgen diff` read.
// Usage: node scripts/published-tools.mjs   (then review the diff of test/lint/fixtures/published/)
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const REPO = path.resolve(import.meta.dirname, "..");
const OUT = path.join(REPO, "test/lint/fixtures/published");
const require = createRequire(import.meta.url);
const scratch = mkdtempSync(path.join(tmpdir(), "mcpgen-published-"));

/** Package → the arguments and environment it needs to start without touching anything of ours. */
const SERVERS = {
  "@modelcontextprotocol/server-everything": { args: ["stdio"], env: {} },
  "@modelcontextprotocol/server-filesystem": { args: [scratch], env: {} },
  "@modelcontextprotocol/server-memory": { args: [], env: { MEMORY_FILE_PATH: path.join(scratch, "memory.jsonl") } },
};

async function all(client, method, key) {
  const items = [];
  let cursor;
  for (let page = 0; page < 100; page++) {
    const result = await client[method](cursor ? { cursor } : {});
    items.push(...result[key]);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return items;
}

mkdirSync(OUT, { recursive: true });
try {
  for (const [pkg, { args, env }] of Object.entries(SERVERS)) {
    const manifest = JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8"));
    const bin = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), Object.values(manifest.bin)[0]);
    const transport = new StdioClientTransport({ command: process.execPath, args: [bin, ...args], env: { ...process.env, ...env }, stderr: "ignore" });
    const client = new Client({ name: "mcpgen-fixtures", version: "1.0.0" });
    await client.connect(transport);
    try {
      const caps = client.getServerCapabilities() ?? {};
      const saved = {
        package: `${pkg}@${manifest.version}`,
        serverInfo: client.getServerVersion(),
        tools: caps.tools ? await all(client, "listTools", "tools") : [],
        prompts: caps.prompts ? await all(client, "listPrompts", "prompts") : [],
        resources: caps.resources ? await all(client, "listResources", "resources") : [],
        resourceTemplates: caps.resources ? await all(client, "listResourceTemplates", "resourceTemplates") : [],
      };
      const file = path.join(OUT, `${pkg.split("/")[1]}.json`);
      writeFileSync(file, JSON.stringify(saved, null, 2) + "\n");
      console.log(`${path.relative(REPO, file)}: ${saved.tools.length} tools, ${saved.prompts.length} prompts, ${saved.resources.length} resources, ${saved.resourceTemplates.length} templates`);
    } finally {
      await client.close();
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
