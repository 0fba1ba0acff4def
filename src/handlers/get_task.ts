// Handler for tool get_task. This file is yours: mcpgen created it once and never overwrites it.
import { ToolError } from "@mcpgen/runtime";
import type { GetTaskHandler } from "../../generated/handlers.gen.js";
import { getTask } from "./lib/store.js";

/** Returns one task by id. */
const handler: GetTaskHandler = async ({ id }) => {
  const task = getTask(id);
  if (!task) throw new ToolError(`No task ${id}: use list_tasks to see the existing ids.`);
  return task;
};

export default handler;
