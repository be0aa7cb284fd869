import { Clock, Effect, Schema } from "effect"
import * as NodeCrypto from "node:crypto"
import { ConfigInvalid } from "../api/errors.js"
import { AddMemoriesResult, type AddMemoriesRequest, JobAccepted } from "../api/MemoriesApi.js"
import { AppConfig } from "../config/AppConfig.js"
import { appliedJobResult, markJobApplied } from "../store/user/appliedJobs.js"
import { insertEvent } from "../store/user/events.js"
import { appendTurns } from "../store/user/turns.js"
import { utcTimestamp } from "../util/timestamps.js"
import type { AuditContext } from "./AuditContext.js"
import { Embedder } from "./Embedder.js"
import { embedForWrite, storeVectors } from "./embedWrites.js"
import { Jobs } from "./Jobs.js"
import { resolveSessionTime } from "./memoryRecords.js"
import { StoreCache, validateUserId } from "./StoreCache.js"

/** An ingest with everything resolved (session id and time included), as a job replays it. */
export const PreparedIngest = Schema.Struct({
  userId: Schema.String,
  sessionId: Schema.String,
  sessionTime: Schema.String,
  turns: Schema.Array(Schema.Struct({ role: Schema.String, content: Schema.String })),
  scope: Schema.Struct({
    agent_id: Schema.NullOr(Schema.String),
    run_id: Schema.NullOr(Schema.String),
    project_id: Schema.NullOr(Schema.String)
  }),
  audit: Schema.Struct({ actor: Schema.String, requestId: Schema.NullOr(Schema.String) })
})
export type PreparedIngest = typeof PreparedIngest.Type

const newSessionId = () => NodeCrypto.randomUUID().replaceAll("-", "")

/** "" means unset on the routes that honour scope keys. */
const scopeValue = (value: string | null | undefined) => (value === undefined || value === "" ? null : value)

/**
 * Writes conversations into users' stores. infer=false keeps the turns verbatim (no LLM at
 * all); extraction (infer=true) needs an LLM provider.
 */
export class Ingest extends Effect.Service<Ingest>()("Memory/Ingest", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const stores = yield* StoreCache
    const jobs = yield* Jobs
    const embedder = yield* Embedder

    const prepare = (request: AddMemoriesRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* validateUserId(request.user_id)
        const sessionTime = yield* resolveSessionTime(request.session_time)
        if (request.infer) {
          return yield* new ConfigInvalid({
            message: config.llm.apiKey._tag === "None"
              ? "extraction (infer=true) needs an LLM provider: set SERVICE_LLM_API_KEY, or send infer=false to store the turns verbatim"
              : "extraction (infer=true) is not available in this build: send infer=false to store the turns verbatim",
            details: { infer: true }
          })
        }
        return {
          userId,
          sessionId: request.session_id ?? newSessionId(),
          sessionTime,
          turns: request.messages.filter((message) => message.content.trim() !== ""),
          scope: { agent_id: scopeValue(request.agent_id), run_id: scopeValue(request.run_id), project_id: scopeValue(request.project_id) },
          audit
        } satisfies PreparedIngest
      })

    /** One transaction: the turns, their spans, the audit event and (for a job) its applied mark. */
    const apply = (prepared: PreparedIngest, jobId: string | null) =>
      Effect.gen(function*() {
        // Embeddings are fetched before the transaction, so no provider call holds the store.
        const vectors = yield* embedForWrite(embedder.active, prepared.turns.map((turn) => turn.content))
        return yield* stores.write(prepared.userId, ({ sql }) =>
          sql.withTransaction(Effect.gen(function*() {
            if (jobId !== null) {
              const applied = yield* appliedJobResult(sql, jobId)
              if (applied !== undefined) return yield* Schema.decodeUnknown(Schema.parseJson(AddMemoriesResult))(applied).pipe(Effect.orDie)
            }
            const now = utcTimestamp(yield* Clock.currentTimeMillis)
            const { seqs, written } = yield* appendTurns(sql, { ...prepared, now })
            yield* storeVectors(sql, embedder.active, "turn", seqs, vectors)
            const result = new AddMemoriesResult({
              session_id: prepared.sessionId,
              facts_extracted: 0,
              spans_written: written,
              turns_written: written
            })
            yield* insertEvent(sql, {
              type: "memory_add",
              memoryId: null,
              sessionId: prepared.sessionId,
              reason: `${written} turns stored verbatim (infer=false)`,
              details: { action: "store_turns", infer: false, turns_written: written, job_id: jobId }
            }, prepared.audit, now)
            if (jobId !== null) yield* markJobApplied(sql, jobId, Schema.encodeSync(AddMemoriesResult)(result), now)
            return result
          })))
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    return {
      /** Ingests and answers with the counts (async_mode false). */
      now: (request: AddMemoriesRequest, audit: AuditContext) =>
        Effect.flatMap(prepare(request, audit), (prepared) => apply(prepared, null)).pipe(Effect.withSpan("Ingest.now")),

      /** Validates, opens the user's store, persists the job and answers before any write (async_mode true). */
      accept: (request: AddMemoriesRequest, audit: AuditContext) =>
        Effect.gen(function*() {
          const prepared = yield* prepare(request, audit)
          yield* stores.write(prepared.userId, () => Effect.void)
          const jobId = yield* jobs.submit("ingest", prepared.userId, Schema.encodeSync(PreparedIngest)(prepared))
          return new JobAccepted({ job_id: jobId, status: "pending", session_id: prepared.sessionId })
        }).pipe(Effect.withSpan("Ingest.accept")),

      /** Runs an accepted ingest job; safe to run again after a crash. */
      runJob: (payload: unknown, jobId: string) =>
        Effect.flatMap(
          Schema.decodeUnknown(PreparedIngest)(payload).pipe(Effect.orDie),
          (prepared) => Effect.map(apply(prepared, jobId), Schema.encodeSync(AddMemoriesResult))
        )
    } as const
  })
}) {}
