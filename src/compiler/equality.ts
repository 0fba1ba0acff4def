/**
 * `const` and `enum`, in place of ajv's: the same code and errors, with the deep equality they compare
 * objects and arrays by given by the caller (`ajv.ts`: the runtime's `equal`, which compares JSON values as
 * JSON Schema says, where ajv's threw on an object with its own `valueOf`). Standalone code requires it as
 * ajv's helper, so generated validators import the runtime's `equal` as before.
 */
import { _, type Code, type CodeKeywordDefinition, type KeywordCxt, type Name } from "ajv";
import { or } from "ajv/dist/compile/codegen/index.js";
import { useFunc } from "ajv/dist/compile/util.js";

/** A deep equality as ajv takes a helper: with the code standalone output requires it by. */
export type Equality = ((a: unknown, b: unknown) => boolean) & { code: string };

export const equalityKeywords = (equal: Equality): CodeKeywordDefinition[] => [
  {
    keyword: "const",
    $data: true,
    error: { message: "must be equal to constant", params: ({ schemaCode }) => _`{allowedValue: ${schemaCode}}` },
    code(cxt: KeywordCxt) {
      const { gen, data, $data, schema, schemaCode } = cxt;
      if ($data || (schema && typeof schema === "object")) cxt.fail$data(_`!${useFunc(gen, equal)}(${data}, ${schemaCode})`);
      else cxt.fail(_`${schema} !== ${data}`);
    },
  },
  {
    keyword: "enum",
    schemaType: "array",
    $data: true,
    error: { message: "must be equal to one of the allowed values", params: ({ schemaCode }) => _`{allowedValues: ${schemaCode}}` },
    code(cxt: KeywordCxt) {
      const { gen, data, $data, schema, schemaCode, it } = cxt;
      if (!$data && schema.length === 0) throw new Error("enum must have non-empty array");
      let helper: Name | undefined;
      const equals = (): Name => (helper ??= useFunc(gen, equal));
      // Long enums (and `$data` ones) loop over the values; short ones are one expression, `===` for scalars.
      if ($data || schema.length >= (it.opts.loopEnum as number)) {
        const valid = gen.let("valid");
        cxt.block$data(valid, () => {
          gen.assign(valid, false);
          gen.forOf("v", schemaCode as Code, (v) => gen.if(_`${equals()}(${data}, ${v})`, () => gen.assign(valid, true).break()));
        });
        cxt.pass(valid);
        return;
      }
      const values = gen.const("vSchema", schemaCode);
      const matches = (schema as unknown[]).map((value, i) =>
        typeof value === "object" && value !== null ? _`${equals()}(${data}, ${values}[${i}])` : _`${data} === ${value as string | number | boolean}`,
      );
      cxt.pass(or(...matches));
    },
  },
];
