/**
 * ajv's URI helper (fast-uri), for a validator whose standalone code requires it. Apart from the other
 * helpers (`validators.ts`), which every validator with a format or a length loads: it is two thirds of
 * their code (45 of 69 KB, ~1 ms to load), and no schema mcpgen has compiled needs it at run time.
 */
import uriModule from "ajv/dist/runtime/uri.js";
import { cjsDefault } from "./cjs-default.js";

export const uri: unknown = cjsDefault(uriModule);
