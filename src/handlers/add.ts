// Handler for tool add. This file is yours: mcpgen created it once and never overwrites it.
import type { AddHandler } from "../../generated/handlers.gen.js";

/** Adds two numbers. */
const handler: AddHandler = async ({ a, b }) => ({ sum: a + b });

export default handler;
