// Handler for tool fetch_page_title. This file is yours: mcpgen created it once and never overwrites it.
import { ToolError } from "@mcpgen/runtime";
import type { FetchPageTitleHandler } from "../../generated/handlers.gen.js";

/** Downloads a page (following redirects, 10 s at most) and returns its <title> text. */
const handler: FetchPageTitleHandler = async ({ url }, ctx) => {
  await ctx.progress(0, 2, `fetching ${url}`);
  const response = await fetch(url, { signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(10_000)]) });
  if (!response.ok) throw new ToolError(`${url} answered ${response.status} ${response.statusText}`);
  const html = await response.text();
  await ctx.progress(1, 2, "reading the title");
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  if (!title) throw new ToolError(`${url} has no <title>`);
  return title;
};

export default handler;
