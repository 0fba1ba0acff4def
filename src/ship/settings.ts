/**
 * Settings: the environment variables a server reads, declared once in package.json under
 * `"mcpgen": { "settings": { "<ENV_NAME>": { … } } }`. The MCP Bundle turns each into a `user_config`
 * entry that the installing app asks for and passes in `mcp_config.env`; the MCP Registry's server.json
 * lists them as the npm package's `environmentVariables`.
 */
import { Ajv } from "ajv";
import { pointerJoin, type Diagnostic } from "../compiler/diagnostics.js";
import { closedObject } from "../compiler/meta-schemas.js";

export type SettingType = "string" | "number" | "boolean" | "directory" | "file";

export interface Setting {
  /** The environment variable the server reads. */
  env: string;
  /** The bundle's `user_config` key: the variable's name in lower case. */
  key: string;
  title: string;
  description: string;
  type: SettingType;
  required: boolean;
  secret: boolean;
  default: string | number | boolean | undefined;
  min: number | undefined;
  max: number | undefined;
}

const settingSchema = closedObject(["description"], {
  title: { type: "string", minLength: 1 },
  description: { type: "string", minLength: 1 },
  type: { enum: ["string", "number", "boolean", "directory", "file"] },
  required: { type: "boolean" },
  secret: { type: "boolean" },
  default: { type: ["string", "number", "boolean"] },
  min: { type: "number" },
  max: { type: "number" },
});

const settingsSchema = {
  type: "object",
  propertyNames: { pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
  additionalProperties: settingSchema,
};

let validate: ReturnType<Ajv["compile"]> | undefined;

/** Reads `mcpgen.settings` of a parsed package.json (`file` is its display path). */
export function readSettings(pkg: Record<string, unknown>, file: string): { settings: Setting[]; diagnostics: Diagnostic[] } {
  const base = "/mcpgen/settings";
  const mcpgen = pkg.mcpgen;
  if (mcpgen === undefined) return { settings: [], diagnostics: [] };
  const problem = (pointer: string, message: string): Diagnostic => ({ file, pointer, message });
  if (mcpgen === null || typeof mcpgen !== "object" || Array.isArray(mcpgen)) return { settings: [], diagnostics: [problem("/mcpgen", "must be an object")] };
  const raw = (mcpgen as Record<string, unknown>).settings;
  if (raw === undefined) return { settings: [], diagnostics: [] };

  validate ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(settingsSchema);
  if (!validate(raw)) {
    const diagnostics = (validate.errors ?? []).map((e) => {
      if (e.keyword === "additionalProperties") {
        const extra = (e.params as { additionalProperty: string }).additionalProperty;
        return problem(pointerJoin(base + e.instancePath, extra), `unknown field "${extra}" (known: ${Object.keys(settingSchema.properties).join(", ")})`);
      }
      if (e.propertyName !== undefined) {
        return problem(pointerJoin(base, e.propertyName), "a setting is named after its environment variable: letters, digits and _, not starting with a digit");
      }
      return problem(base + e.instancePath, e.message ?? "is invalid");
    });
    // ajv reports a bad name twice: the name's own error and the `propertyNames` summary, left out here.
    return { settings: [], diagnostics: diagnostics.filter((_, i) => validate?.errors?.[i]?.keyword !== "propertyNames") };
  }

  const settings: Setting[] = [];
  const diagnostics: Diagnostic[] = [];
  const keys = new Map<string, string>();
  for (const [env, value] of Object.entries(raw as Record<string, Record<string, unknown>>)) {
    const at = (field?: string) => (field === undefined ? pointerJoin(base, env) : pointerJoin(base, env, field));
    const type = (value.type as SettingType | undefined) ?? "string";
    const key = env.toLowerCase();
    const other = keys.get(key);
    if (other !== undefined) diagnostics.push(problem(at(), `differs from "${other}" only in case; settings must differ in more than that`));
    keys.set(key, env);
    if (value.secret === true && type !== "string") diagnostics.push(problem(at("secret"), `only a string setting can be secret, not a ${type}`));
    for (const bound of ["min", "max"] as const) {
      if (value[bound] !== undefined && type !== "number") diagnostics.push(problem(at(bound), `only a number setting has ${bound}, not a ${type}`));
    }
    const fallback = value.default;
    if (fallback !== undefined) {
      const expected = type === "number" ? "number" : type === "boolean" ? "boolean" : "string";
      if (typeof fallback !== expected) diagnostics.push(problem(at("default"), `must be a ${expected}, as the setting is a ${type}`));
    }
    settings.push({
      env,
      key,
      title: (value.title as string | undefined) ?? env,
      description: value.description as string,
      type,
      required: value.required === true,
      secret: value.secret === true,
      default: fallback as Setting["default"],
      min: value.min as number | undefined,
      max: value.max as number | undefined,
    });
  }
  return { settings, diagnostics };
}
