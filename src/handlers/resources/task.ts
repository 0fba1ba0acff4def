// Handler for resource template task. This file is yours: mcpgen created it once and never overwrites it.
import { ToolError } from "@mcpgen/runtime";
import type { TaskResourceCompletions, TaskResourceHandler } from "../../../generated/handlers.gen.js";
import { allTasks, getTask } from "../lib/store.js";

/** One task as JSON, by id. */
const handler: TaskResourceHandler = async ({ id }) => {
  const task = getTask(id);
  if (!task) throw new ToolError(`No task ${id}`);
  return JSON.stringify(task);
};

export default handler;

/** Task ids starting with what was typed. */
export const complete: TaskResourceCompletions = {
  id: async (value) => allTasks().map((t) => t.id).filter((id) => id.startsWith(value)),
};
