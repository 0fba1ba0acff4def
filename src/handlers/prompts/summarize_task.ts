// Handler for prompt summarize_task. This file is yours: mcpgen created it once and never overwrites it.
import { ToolError } from "@mcpgen/runtime";
import type { SummarizeTaskPromptCompletions, SummarizeTaskPromptHandler } from "../../../generated/handlers.gen.js";
import { allTasks, getTask } from "../lib/store.js";

/** Embeds the task as a resource and asks for a summary. */
const handler: SummarizeTaskPromptHandler = async ({ id }) => {
  const task = getTask(id);
  if (!task) throw new ToolError(`No task ${id}`);
  return {
    description: `Summary of ${id}`,
    messages: [
      { role: "user", content: { type: "resource", resource: { uri: `tasks://task/${id}`, mimeType: "application/json", text: JSON.stringify(task) } } },
      { role: "user", content: { type: "text", text: "Summarize this task in one paragraph." } },
    ],
  };
};

export default handler;

export const complete: SummarizeTaskPromptCompletions = {
  id: async (value) => allTasks().map((t) => t.id).filter((id) => id.startsWith(value)),
};
