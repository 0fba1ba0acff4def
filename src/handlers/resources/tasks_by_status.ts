// Handler for resource template tasks_by_status. This file is yours: mcpgen created it once and never overwrites it.
import type { TasksByStatusResourceHandler } from "../../../generated/handlers.gen.js";
import { allTasks } from "../lib/store.js";

/** The tasks in one status, newest first. `limit` arrives as a number: its schema says integer. */
const handler: TasksByStatusResourceHandler = async ({ status, limit = 100 }) =>
  JSON.stringify(allTasks().filter((t) => t.status === status).slice(0, limit));

export default handler;
