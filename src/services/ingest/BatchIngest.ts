import { Cause, Effect, Either, ParseResult, Schema } from "effect"
import { errorLine, isApiError } from "../../api/errors.js"
import { fieldErrorLine } from "../../api/fieldErrors.js"
import { type BatchAddRequest, BatchAddResult, BatchItemResult, BatchSession, JobAccepted } from "../../api/MemoriesApi.js"
import { AppConfig } from "../../config/AppConfig.js"
import type { AuditContext } from "../../domain/audit.js"
import { Ingest, PreparedIngest } from "./Ingest.js"
import { Jobs } from "../jobs/Jobs.js"
import { validateUserId } from "../../domain/userId.js"
import { UserStore } from "../../storage/UserStore.js"
import { jobHandler } from "../jobs/jobHandler.js"
import { span } from "../../util/span.js"

/** A batch as its job replays it: each session prepared, or the reason it was refused up front. */
const PreparedBatch = Schema.Struct({
  userId: Schema.String,
  items: Schema.Array(Schema.Union(
    Schema.Struct({ index: Schema.Int, prepared: PreparedIngest }),
    Schema.Struct({ index: Schema.Int, error: Schema.String })
  ))
})
type PreparedBatch = typeof PreparedBatch.Type
type BatchItem = PreparedBatch["items"][number]

const decodeSession = Schema.decodeUnknownEither(BatchSession)

/** A session that fails validation, said the way a job error is: `validation_error: <where>: <what>`. */
const validationLine = (index: number, raw: unknown, error: ParseResult.ParseError) =>
  `validation_error: ${fieldErrorLine(error.issue, raw, `sessions[${index}]`)}`

const failed = (index: number, error: string) =>
  new BatchItemResult({ index, ok: false, session_id: null, facts_extracted: 0, error })

/**
 * Many sessions of one user in one call. Every session is attempted on its own, a few at a
 * time toward the provider; one that fails is reported in its item and never stops the others.
 */
export class BatchIngest extends Effect.Service<BatchIngest>()("Memory/BatchIngest", {
  effect: Effect.gen(function*() {
    const config = yield* AppConfig
    const ingest = yield* Ingest
    const jobs = yield* Jobs
    const store = yield* UserStore

    const prepare = (request: BatchAddRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* validateUserId(request.user_id)
        const items = yield* Effect.forEach(request.sessions, (raw, index): Effect.Effect<BatchItem> =>
          Either.match(decodeSession(raw, { onExcessProperty: "error" }), {
            onLeft: (error) => Effect.succeed({ index, error: validationLine(index, raw, error) }),
            onRight: (session) =>
              ingest.prepare({ ...request, ...session, user_id: userId }, audit).pipe(
                Effect.map((prepared) => ({ index, prepared })),
                Effect.catchAll((error) => Effect.succeed({ index, error: errorLine(error) }))
              )
          }))
        return { userId, items } satisfies PreparedBatch
      })

    /** Runs the sessions; within a job each is applied once, however often the job is resumed. */
    const run = (batch: PreparedBatch, jobId: string | null) =>
      Effect.map(
        Effect.forEach(batch.items, (item) => {
          if ("error" in item) return Effect.succeed(failed(item.index, item.error))
          return ingest.apply(item.prepared, jobId === null ? null : `${jobId}:${item.index}`).pipe(
            Effect.map((result) =>
              new BatchItemResult({ index: item.index, ok: true, session_id: result.session_id, facts_extracted: result.facts_extracted, error: null })),
            Effect.catchAllCause((cause) => {
              const failure = Cause.failureOption(cause)
              if (failure._tag === "Some" && isApiError(failure.value)) return Effect.succeed(failed(item.index, errorLine(failure.value)))
              if (Cause.isInterruptedOnly(cause)) return Effect.interrupt
              return Effect.as(
                Effect.logError("batch session failed unexpectedly", cause).pipe(Effect.annotateLogs({ index: item.index })),
                failed(item.index, "internal_error: the session could not be written")
              )
            })
          )
        }, { concurrency: config.llm.concurrency }),
        (results) =>
          new BatchAddResult({
            succeeded: results.filter((result) => result.ok).length,
            failed: results.filter((result) => !result.ok).length,
            results
          })
      ).pipe(span("BatchIngest.run", { attributes: { sessions: batch.items.length } }))

    return {
      now: (request: BatchAddRequest, audit: AuditContext) => Effect.flatMap(prepare(request, audit), (batch) => run(batch, null)),

      /** Validates, opens the user's store and persists the job before answering 202. */
      accept: (request: BatchAddRequest, audit: AuditContext) =>
        Effect.gen(function*() {
          const batch = yield* prepare(request, audit)
          yield* store.provision(batch.userId)
          const jobId = yield* jobs.submit("ingest_batch", batch.userId, Schema.encodeSync(PreparedBatch)(batch))
          return new JobAccepted({ job_id: jobId, status: "pending", session_id: "" })
        }).pipe(span("BatchIngest.accept")),

      runJob: jobHandler(PreparedBatch, BatchAddResult, run)
    } as const
  })
}) {}
