#!/usr/bin/env node
import { main } from "../dist/cli/main.js";

await main();
