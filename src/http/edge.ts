import { FileSystem, HttpApiBuilder, HttpIncomingMessage, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Layer, Option } from "effect"
import { MemoryApi } from "../api/Api.js"
import { readBodyAsJsonOnly } from "./contentType.js"
import type { CorsPolicy } from "./cors.js"
import { errorResponse } from "./errorResponse.js"
import { handleFailure } from "./failures.js"
import { parseJsonWithinDepth } from "./jsonDepth.js"
import { payloadTooLarge } from "./unreadableBodies.js"

/**
 * The router's parameters as long as the ids in them: an evidence id carries its session id,
 * which the caller chose, so the router's default cap (100 characters, past which it matches
 * no route) would make such memories unreachable. Node's header limit bounds a path anyway.
 */
const unboundedParameters = HttpRouter.setRouterConfig({ maxParamLength: Number.MAX_SAFE_INTEGER })

/** The route whose handler reads its body as a stream into a file, within its own limit (an import's). */
const IMPORT_PATH = "/v1/import"

/**
 * The API's edge, inside routing's reach but before any handler: CORS preflights answered,
 * declared oversize bodies refused before a byte is read (undeclared ones are cut off while
 * streaming; an import's are counted against SERVICE_MAX_IMPORT_BYTES by its service), bodies read
 * only as JSON (see contentType.ts), refused when nested too deep, and
 * every failure rendered as above.
 */
export const edgeLayer = (options: { readonly maxBodyBytes: number; readonly maxImportBytes: number; readonly cors: CorsPolicy }) =>
  Layer.mergeAll(
    unboundedParameters,
    // Every body but an import's is read within this limit.
    Layer.succeed(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(options.maxBodyBytes))),
    HttpApiBuilder.middleware(MemoryApi, (app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const preflight = options.cors.preflight(request)
        if (Option.isSome(preflight)) return preflight.value
        const streamed = request.method === "POST" && request.url.split("?")[0] === IMPORT_PATH
        const limit = streamed ? options.maxImportBytes : options.maxBodyBytes
        const declared = request.headers["content-length"]
        if (declared !== undefined && Number(declared) > limit) return errorResponse(payloadTooLarge(limit))
        // An import reads its own body, as JSON lines, within its own limit, and checks its media
        // type itself; every other body is read as JSON only.
        if (!streamed) readBodyAsJsonOnly(request, parseJsonWithinDepth)
        const handled = Effect.catchAllCause(app, handleFailure(options.maxBodyBytes))
        return yield* streamed ? HttpIncomingMessage.withMaxBodySize(handled, Option.none()) : handled
      }))
  )
