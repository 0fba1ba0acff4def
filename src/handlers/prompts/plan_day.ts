// Handler for prompt plan_day. This file is yours: mcpgen created it once and never overwrites it.
import type { PlanDayPromptHandler } from "../../../generated/handlers.gen.js";
import { allTasks } from "../lib/store.js";

/** Asks the model to pick the tasks to do today. */
const handler: PlanDayPromptHandler = async ({ focus, max_tasks = 3 }) => {
  const open = allTasks().filter((t) => t.status !== "done");
  const list = open.map((t) => `- ${t.id}: ${t.title}${t.due ? ` (due ${t.due})` : ""}`).join("\n") || "(no open tasks)";
  return `Today's focus: ${focus}. Pick at most ${max_tasks} of these tasks and say why:\n${list}`;
};

export default handler;
