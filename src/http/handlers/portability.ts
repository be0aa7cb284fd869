import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option, Stream } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { ImportResult } from "../../api/PortabilityApi.js"
import { UserExport } from "../../services/portability/UserExport.js"
import { UserImport } from "../../services/portability/UserImport.js"
import { JSON_LINES_BODY, refusedMediaType } from "../contentType.js"
import { currentAuditContext } from "../currentRequest.js"
import { unreadableBody } from "../unreadableBodies.js"

export const PortabilityLive = HttpApiBuilder.group(MemoryApi, "portability", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* UserExport
    const imports = yield* UserImport
    return handlers
      .handle("exportUser", ({ urlParams }) =>
        Effect.map(exports.lines(urlParams), (lines) =>
          HttpServerResponse.stream(Stream.encodeText(lines), { contentType: "application/x-ndjson" })))
      // The body is read as a stream, never whole; one of another media type is read to its end
      // and dropped (a body left unread takes the connection, and the answer with it).
      .handleRaw("importUser", ({ request, urlParams }) =>
        Option.match(refusedMediaType(request.headers["content-type"], JSON_LINES_BODY), {
          onSome: (refused) => Effect.zipRight(Stream.runDrain(Stream.orDie(request.stream)), Effect.fail(unreadableBody(refused, ""))),
          onNone: () =>
            Effect.flatMap(currentAuditContext, (audit) =>
              Effect.map(imports.load(urlParams, Stream.orDie(request.stream), audit), (result) =>
                HttpServerResponse.unsafeJson(new ImportResult(result), { status: 201 })))
        }))
  }))
