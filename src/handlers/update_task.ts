// Handler for tool update_task. This file is yours: mcpgen created it once and never overwrites it.
import { ToolError } from "@mcpgen/runtime";
import type { UpdateTaskHandler } from "../../generated/handlers.gen.js";
import { getTask } from "./lib/store.js";

/** Sets fields of an existing task; setting the same values again changes nothing. */
const handler: UpdateTaskHandler = async ({ id, ...fields }, ctx) => {
  const task = getTask(id);
  if (!task) throw new ToolError(`No task ${id}: use list_tasks to see the existing ids.`);
  const before = JSON.stringify(task);
  Object.assign(task, fields);
  if (JSON.stringify(task) !== before) {
    ctx.resourceUpdated(`tasks://task/${id}`); // clients subscribed to this task re-read it
    if (fields.status !== undefined) ctx.resourceUpdated("tasks://stats");
  }
  return task;
};

export default handler;
