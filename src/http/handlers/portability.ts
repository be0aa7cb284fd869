import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Stream } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { ImportResult } from "../../api/PortabilityApi.js"
import { UserExport } from "../../services/portability/UserExport.js"
import { UserImport } from "../../services/portability/UserImport.js"
import { currentAuditContext } from "../currentRequest.js"

export const PortabilityLive = HttpApiBuilder.group(MemoryApi, "portability", (handlers) =>
  Effect.gen(function*() {
    const exports = yield* UserExport
    const imports = yield* UserImport
    return handlers
      .handle("exportUser", ({ urlParams }) =>
        Effect.map(exports.lines(urlParams), (lines) =>
          HttpServerResponse.stream(Stream.encodeText(lines), { contentType: "application/x-ndjson" })))
      // The body is read as a stream, never whole.
      .handleRaw("importUser", ({ request, urlParams }) =>
        Effect.flatMap(currentAuditContext, (audit) =>
          Effect.map(imports.load(urlParams, Stream.orDie(request.stream), audit), (result) =>
            HttpServerResponse.unsafeJson(new ImportResult(result), { status: 201 }))))
  }))
