/**
 * The example server through LangChain's MCP adapters, over stdio. The adapters resolve a `$ref` only in
 * the form `#/$defs/<name>` (one level), so a nested ref such as `#/$defs/task/$defs/taskId` made loading or
 * calling get_task fail with an unresolved `$ref`; the flat definitions mcpgen emits make it work.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { loadMcpTools } from "@langchain/mcp-adapters";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { assertRuntimeBuilt, EXAMPLE_SERVER } from "./helpers/e2e.js";

const closers: (() => Promise<unknown>)[] = [];
beforeAll(assertRuntimeBuilt);
afterEach(async () => {
  await Promise.allSettled(closers.splice(0).map((close) => close()));
});

describe("LangChain MCP adapters", () => {
  it("load every listed tool of the example and invoke get_task, create_task and list_tasks", async () => {
    const client = new Client({ name: "langchain-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ ...EXAMPLE_SERVER, stderr: "pipe" }));
    closers.push(() => client.close());
    const tools = await loadMcpTools("tasks", client, { throwOnLoadError: true, prefixToolNameWithServerName: false, additionalToolNamePrefix: "" });
    expect(tools.map((t) => t.name).sort()).toEqual(["add", "create_task", "delete_task", "fetch_page_title", "get_task", "list_tasks", "update_task"]);
    const tool = (name: string) => tools.find((t) => t.name === name)!;

    const got = JSON.stringify(await tool("get_task").invoke({ id: "T-1" }));
    expect(got).toContain("Try the example server");
    const created = JSON.stringify(await tool("create_task").invoke({ title: "Via LangChain", assignee: { name: "Ada" } }));
    expect(created).toContain("Via LangChain");
    const listed = JSON.stringify(await tool("list_tasks").invoke({ status: "open" }));
    expect(listed).toContain("Via LangChain");
    // The adapters check arguments against the resolved schema before calling: a bad id never leaves.
    await expect(tool("get_task").invoke({ id: 7 })).rejects.toThrow();
  }, 30_000);
});
