#!/usr/bin/env node
import { SERVICE_VERSION } from "../version.js"

// `--version` alone answers before the commands, their schemas and the runtime load: the
// same line @effect/cli prints, at the cost of starting Node.
const args = process.argv.slice(2)
if (args.length === 1 && args[0] === "--version") process.stdout.write(`${SERVICE_VERSION}\n`)
else await import("./run.js")
