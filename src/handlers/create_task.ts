// Handler for tool create_task. This file is yours: mcpgen created it once and never overwrites it.
import type { CreateTaskHandler } from "../../generated/handlers.gen.js";
import { createTask } from "./lib/store.js";

/** Creates a task and returns it with its new id. */
const handler: CreateTaskHandler = async (input, ctx) => {
  const task = createTask(input);
  await ctx.log("info", { created: task.id });
  ctx.resourceUpdated("tasks://stats"); // subscribers of the counts hear about the change
  return task;
};

export default handler;
