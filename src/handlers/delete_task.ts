// Handler for tool delete_task. This file is yours: mcpgen created it once and never overwrites it.
import type { DeleteTaskHandler } from "../../generated/handlers.gen.js";
import { deleteTask } from "./lib/store.js";

/** Deletes a task for good. */
const handler: DeleteTaskHandler = async ({ id }, ctx) => {
  const deleted = deleteTask(id);
  if (deleted) {
    ctx.resourceUpdated(`tasks://task/${id}`); // reading it now answers "resource not found"
    ctx.resourceUpdated("tasks://stats");
  }
  return { deleted };
};

export default handler;
