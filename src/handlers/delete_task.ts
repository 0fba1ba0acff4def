// Handler for tool delete_task. This file is yours: mcpgen created it once and never overwrites it.
import type { DeleteTaskHandler } from "../../generated/handlers.gen.js";
import { deleteTask } from "./lib/store.js";

/** Deletes a task for good. */
const handler: DeleteTaskHandler = async ({ id }) => ({ deleted: deleteTask(id) });

export default handler;
