// Type-level assertions on generated handler contracts, checked by `tsc` in golden.test.ts.
import { expectTypeOf } from "vitest";
import type { CallToolResult, ContentBlock, StructuredOutput, ToolContext } from "@mcpgen/runtime";
import type { ShipHandler, PlantHandler } from "../fixtures/refs/expected/generated/handlers.gen.js";
import type { Address, ShipInput, ShipOutput, Tree } from "../fixtures/refs/expected/generated/types.gen.js";
import type { SendMailHandler } from "../fixtures/metadata/expected/generated/handlers.gen.js";
import type { GreetHandler } from "../fixtures/yaml/expected/generated/handlers.gen.js";
import type { ListTasksHandler } from "../../generated/handlers.gen.js";
import type { Status } from "../../generated/types.gen.js";

// Inputs are the generated types; cross-file refs become shared named types.
expectTypeOf<Parameters<ShipHandler>[0]>().toEqualTypeOf<ShipInput>();
expectTypeOf<ShipInput["to"]>().toEqualTypeOf<Address>();
expectTypeOf<ShipInput["from"]>().toEqualTypeOf<Address | undefined>();
expectTypeOf<Address["country"]>().toEqualTypeOf<string>();
expectTypeOf<Parameters<ShipHandler>[1]>().toEqualTypeOf<ToolContext>();
// A tool with an outputSchema returns its structured value, alone or with its own content (`structured()`).
expectTypeOf<Awaited<ReturnType<ShipHandler>>>().toEqualTypeOf<StructuredOutput<ShipOutput>>();
// A root $ref keeps its target's type; recursion stays recursive.
expectTypeOf<Parameters<PlantHandler>[0]>().toEqualTypeOf<Tree>();
expectTypeOf<NonNullable<Tree["children"]>[number]>().toEqualTypeOf<Tree>();
expectTypeOf<Awaited<ReturnType<PlantHandler>>>().toEqualTypeOf<StructuredOutput<Address>>();
// Without an outputSchema: text, content blocks or a full result.
expectTypeOf<Awaited<ReturnType<SendMailHandler>>>().toEqualTypeOf<string | ContentBlock[] | CallToolResult>();
expectTypeOf<Parameters<SendMailHandler>[0]["to"]>().toEqualTypeOf<string>();
// Enums become unions; optional properties stay optional.
expectTypeOf<Parameters<GreetHandler>[0]["style"]>().toEqualTypeOf<"formal" | "casual" | undefined>();
expectTypeOf<Parameters<ListTasksHandler>[0]["status"]>().toEqualTypeOf<Status | undefined>();
expectTypeOf<Status>().toEqualTypeOf<"open" | "in_progress" | "done">();
// A property with a default is filled in before the handler runs: present in its input type.
expectTypeOf<Parameters<ListTasksHandler>[0]["limit"]>().toEqualTypeOf<number>();

// Resources, templates and prompts: variables and arguments typed from their schemas (coerced types).
import type { CompletionHandler, ResourceResult, GetPromptResult, PromptMessage } from "@mcpgen/runtime";
import type { FileResourceCompletions, FileResourceHandler, LiveResourceHandler, ReviewPromptHandler } from "../fixtures/primitives/expected/generated/handlers.gen.js";
import type { FileResourceVariables } from "../fixtures/primitives/expected/generated/types.gen.js";

expectTypeOf<Parameters<FileResourceHandler>[0]>().toEqualTypeOf<{ path: string; version?: number }>();
expectTypeOf<FileResourceVariables["version"]>().toEqualTypeOf<number | undefined>();
expectTypeOf<Parameters<FileResourceHandler>[1]["uri"]>().toEqualTypeOf<string>();
expectTypeOf<Awaited<ReturnType<LiveResourceHandler>>>().toEqualTypeOf<ResourceResult>();
expectTypeOf<Parameters<ReviewPromptHandler>[0]>().toEqualTypeOf<{ code: string; language: "ts" | "py" | "go"; tone?: string }>();
expectTypeOf<Awaited<ReturnType<ReviewPromptHandler>>>().toEqualTypeOf<string | PromptMessage[] | GetPromptResult>();
expectTypeOf<FileResourceCompletions>().toEqualTypeOf<{ path: CompletionHandler<FileResourceVariables> }>();
