import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { MemoryApi } from "../../api/Api.js"
import { currentAuditContext } from "../currentRequest.js"
import { BatchIngest } from "../../services/ingest/BatchIngest.js"
import { Ingest } from "../../services/ingest/Ingest.js"
import { MemoryReads } from "../../services/memories/MemoryReads.js"
import { MemoryWrites } from "../../services/memories/MemoryWrites.js"
import { orNotFound } from "./orNotFound.js"

export const MemoriesLive = HttpApiBuilder.group(MemoryApi, "memories", (handlers) =>
  Effect.gen(function*() {
    const ingest = yield* Ingest
    const batch = yield* BatchIngest
    const reads = yield* MemoryReads
    const writes = yield* MemoryWrites
    return handlers
      .handle("add", ({ payload }) =>
        Effect.flatMap(currentAuditContext, (audit) =>
          Effect.if(payload.async_mode, {
            onTrue: () => ingest.accept(payload, audit),
            onFalse: () => ingest.now(payload, audit)
          })))
      .handle("addBatch", ({ payload }) =>
        Effect.flatMap(currentAuditContext, (audit) =>
          Effect.if(payload.async_mode, {
            onTrue: () => batch.accept(payload, audit),
            onFalse: () => batch.now(payload, audit)
          })))
      .handle("list", ({ urlParams }) => reads.list(urlParams))
      .handle("get", ({ path, urlParams }) =>
        reads.get(path.memory_id, urlParams).pipe(orNotFound(`memory '${path.memory_id}' not found`)))
      .handle("update", ({ path, payload, urlParams }) =>
        Effect.flatMap(currentAuditContext, (audit) => writes.update(path.memory_id, payload, urlParams, audit)))
      .handle("deleteUser", ({ urlParams }) =>
        Effect.flatMap(currentAuditContext, (audit) => writes.removeUser(urlParams, audit)))
      .handle("delete", ({ path, urlParams }) =>
        Effect.flatMap(currentAuditContext, (audit) => writes.remove(path.memory_id, urlParams, audit)))
  }))
