import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { currentAuditContext } from "../currentRequest.js"
import { Maintenance } from "../../services/maintenance/Maintenance.js"
import { Reembedding } from "../../services/maintenance/Reembedding.js"

export const MaintenanceLive = HttpApiBuilder.group(MemoryApi, "maintenance", (handlers) =>
  Effect.gen(function*() {
    const maintenance = yield* Maintenance
    const reembedding = yield* Reembedding
    return handlers
      .handle("dream", ({ payload }) =>
        Effect.flatMap(currentAuditContext, (audit) =>
          Effect.if(payload.async ?? payload.async_mode ?? false, {
            onTrue: () => maintenance.accept(payload, audit),
            onFalse: () => maintenance.dream(payload, audit)
          })))
      .handle("embed", ({ payload }) =>
        Effect.if(payload.async ?? payload.async_mode ?? false, {
          onTrue: () => reembedding.accept(payload),
          onFalse: () => reembedding.embed(payload)
        }))
  }))
