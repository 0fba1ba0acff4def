// Handler for resource stats. This file is yours: mcpgen created it once and never overwrites it.
import type { StatsResourceHandler } from "../../../generated/handlers.gen.js";
import { allTasks } from "../lib/store.js";

/** Counts of tasks by status, computed when read. */
const handler: StatsResourceHandler = async () => {
  const counts: Record<string, number> = { open: 0, in_progress: 0, done: 0 };
  for (const task of allTasks()) counts[task.status] = (counts[task.status] ?? 0) + 1;
  return JSON.stringify(counts);
};

export default handler;
