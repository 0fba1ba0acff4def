// The part of @hyperjump/uri-template that mcpgen uses (the package ships no types).
declare module "@hyperjump/uri-template" {
  export type TemplatePart =
    | { type: "literal"; value: string }
    | { type: string; variables: { name: string; explode: boolean; maxLength?: string }[] };
  /** Parses an RFC 6570 template; throws with a message pointing at the error. */
  export function parse(template: string): TemplatePart[];
  /** Prints a parsed template back as a template string. */
  export function stringify(template: TemplatePart[]): string;
}
