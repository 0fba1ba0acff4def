/**
 * The core fixture server's registry, as mcpgen generated and tsc compiled it from
 * test/runtime/fixture-schemas/core (see test/global-setup.ts), with its lazy loads counted.
 */
import { pathToFileURL } from "node:url";
import type { Registry } from "../../../packages/runtime/src/index.js";
import { builtFixture } from "./e2e.js";

const generated = (await import(pathToFileURL(builtFixture("core").registry).href)) as { registry: Registry };

/** How often validator / handler modules were loaded (the runtime must cache them). */
export const loads = { validators: 0, handlers: 0 };

/** The generated registry, each tool's loaders counting into `loads`. */
export const registry: Registry = {
  ...generated.registry,
  tools: generated.registry.tools.map((tool) => ({
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
