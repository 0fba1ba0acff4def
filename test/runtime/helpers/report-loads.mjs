// `node --import` this file: every module the process then loads is reported on stderr as "[load] <url>".
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(
    'import { writeSync } from "node:fs"; export async function load(url, context, next) { writeSync(2, "[load] " + url + "\\n"); return next(url, context); }',
  )}`,
);
