/** The schemas the catalog tests render: the example server and a fixture whose every text is hostile. */
import path from "node:path";
import { REPO } from "../compiler/helpers.js";

export const DOCS_CASES = {
  example: path.join(REPO, "schemas"),
  tricky: path.join(REPO, "test/docs/fixtures/tricky/schemas"),
};
