// Handler for tool list_tasks. This file is yours: mcpgen created it once and never overwrites it.
import type { ListTasksHandler } from "../../generated/handlers.gen.js";
import { allTasks } from "./lib/store.js";

/** Lists tasks, filtered by status and tag, newest first. */
const handler: ListTasksHandler = async ({ status, tag, limit = 20 }) => {
  const matching = allTasks().filter((t) => (!status || t.status === status) && (!tag || t.tags.includes(tag)));
  return { tasks: matching.slice(0, limit), total: matching.length };
};

export default handler;
