// Handler for tool server_stats (hidden: callable, not listed). This file is yours.
import type { ServerStatsHandler } from "../../generated/handlers.gen.js";
import { startedAt, taskCount } from "./lib/store.js";

/** Internal counters, for operators. */
const handler: ServerStatsHandler = async () => ({ tasks: taskCount(), uptimeSeconds: (Date.now() - startedAt) / 1000 });

export default handler;
