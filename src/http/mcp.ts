import { HttpApiBuilder } from "@effect/platform"
import { Effect, Redacted } from "effect"
import { Authentication } from "../api/Authentication.js"
import { MethodNotAllowed } from "../api/errors.js"
import { lazyModule } from "../util/lazyModule.js"
import { builtOnFirstUse } from "./builtOnFirstUse.js"
import { errorResponse } from "./errorResponse.js"
import type { McpServices } from "./mcpApp.js"

export const MCP_PATH = "/mcp"

/** The MCP server (its SDK, the RPC protocol and the tools' schemas): loaded with the first request to /mcp. */
const mcpModule = lazyModule("MCP server", () => import("./mcpApp.js"))

/**
 * MCP over streamable HTTP, mounted on the API's own router at /mcp so the edge (body limit,
 * error envelopes, request log) applies, behind the same key check as the API. The MCP server is
 * built on the first authenticated request and then lives as long as the HTTP server: a process
 * that is never asked for it neither loads nor runs it.
 */
export const McpHttpLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const authentication = yield* Authentication
    const services = yield* Effect.context<McpServices>()
    const scope = yield* Effect.scope
    const app = yield* builtOnFirstUse(
      // A module that cannot load is a broken installation: a fault, not an answer.
      mcpModule.pipe(Effect.orDie, Effect.flatMap(({ mcpApp }) => mcpApp(services, scope)))
    )
    // The token argument is unused: the check reads the request's headers itself, as for the API.
    const guarded = authentication.bearer(Redacted.make("")).pipe(
      Effect.zipRight(Effect.flatten(app)),
      Effect.catchTag("Unauthorized", (error) => Effect.succeed(errorResponse(error)))
    )
    yield* router.post(MCP_PATH, guarded)
    // No server-initiated stream: a GET (or DELETE) is answered as the transport expects.
    const notAllowed = Effect.succeed(errorResponse(new MethodNotAllowed({ message: "Method Not Allowed", details: {} }), { allow: "POST" }))
    yield* router.get(MCP_PATH, notAllowed)
    yield* router.del(MCP_PATH, notAllowed)
  })
)
