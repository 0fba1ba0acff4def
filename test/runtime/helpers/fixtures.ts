/**
 * The fixture servers' registries, as mcpgen generated and tsc compiled them from
 * test/runtime/fixture-schemas/<name> (see test/global-setup.ts).
 */
import { pathToFileURL } from "node:url";
import type { Registry } from "../../../packages/runtime/src/index.js";
import { builtFixture } from "./e2e.js";

async function load(name: string): Promise<Registry> {
  return ((await import(pathToFileURL(builtFixture(name).registry).href)) as { registry: Registry }).registry;
}

const core = await load("core");

/** How often validator / handler modules were loaded (the runtime must cache them). */
export const loads = { validators: 0, handlers: 0 };

/** The core fixture (18 tools), each tool's loaders counting into `loads`. */
export const registry: Registry = {
  ...core,
  tools: core.tools.map((tool) => ({
    ...tool,
    validators: () => {
      loads.validators++;
      return tool.validators();
    },
    handler: () => {
      loads.handlers++;
      return tool.handler();
    },
  })),
};

/** Tools, properties, prompts, arguments and template variables named like Object.prototype's members. */
export const protoRegistry = await load("proto-names");
/** The names that trip code looking names up in plain objects (each is a tool taking a required property of its name). */
export const PROTO_NAMES = ["constructor", "toString", "__proto__", "valueOf", "hasOwnProperty"];
/** The proto-names fixture's resource template. */
export const TEMPLATE = "proto://{toString}/{valueOf}/{constructor}";
