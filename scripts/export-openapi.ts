/**
 * Writes the OpenAPI document derived from the API definition, without starting a server.
 * Usage: npm run openapi [-- <file>]   (stdout when no file is given)
 */
import { OpenApi } from "@effect/platform"
import * as NodeFs from "node:fs"
import { MemoryApi } from "../src/api/Api.js"

const document = `${JSON.stringify(OpenApi.fromApi(MemoryApi), null, 2)}\n`
const target = process.argv[2]
if (target === undefined) process.stdout.write(document)
else NodeFs.writeFileSync(target, document)
