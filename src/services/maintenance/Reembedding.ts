import { Clock, Effect, Option, Ref, Schema } from "effect"
import { ProviderUnavailable, ServiceUnavailable } from "../../api/errors.js"
import { JobStarted } from "../../api/JobsApi.js"
import { EmbedRequest, EmbedResult } from "../../api/MaintenanceApi.js"
import type { VectorSpace } from "../../domain/records.js"
import { validateUserId } from "../../domain/userId.js"
import { type ActiveEmbedder, Embedder } from "../../llm/Embedder.js"
import { LlmUsage } from "../../llm/LlmUsage.js"
import { NO_TOKENS } from "../../llm/usage.js"
import { type RowToEmbed, UserStore } from "../../storage/UserStore.js"
import { jobHandler } from "../jobs/jobHandler.js"
import { Jobs } from "../jobs/Jobs.js"
import { span } from "../../util/span.js"

/** An embed job keeps the request as it was sent, defaults applied. */
const EmbedJobPayload = Schema.Struct({ request: EmbedRequest })

/** The user an embed job for every user is filed under. */
const EVERY_USER = "*"

/** What a run did to one user's store. */
interface UserOutcome {
  readonly held: boolean
  readonly embedded: number
  readonly remaining: number
  readonly switched: boolean
  readonly cancelled: boolean
}

/** A run's deadline and whether it has stored a batch yet: every run stores at least one, so runs under a short deadline still progress. */
interface Budget {
  readonly deadline: number
  progressed: boolean
}

/**
 * Brings users' vectors to the configured embedder's model and dimension, run only when asked:
 * facts and turns written with no embedder, or with another one, get its vectors batch by batch.
 * A batch is one provider request and one transaction, so a run cut short (deadline or crash)
 * loses at most the batch in flight, and the next run takes up what is left.
 */
export class Reembedding extends Effect.Service<Reembedding>()("Memory/Reembedding", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const embedder = yield* Embedder
    const usage = yield* LlmUsage
    const jobs = yield* Jobs
    // The embedder's dimension, learnt from its first vector in this process.
    const learnt = yield* Ref.make(Option.none<VectorSpace>())

    const active = Option.match(embedder.active, {
      onNone: () =>
        Effect.fail(new ServiceUnavailable({ message: `/v1/maintenance/embed needs an embedding provider: ${embedder.reason}`, details: {} })),
      onSome: Effect.succeed
    })

    /** Vectors for texts, the request counted as maintenance's. */
    const embed = (model: ActiveEmbedder, texts: ReadonlyArray<string>) =>
      Effect.tap(model.embed(texts), () =>
        // Embedding replies' token counts are not read: the request is counted, its tokens as unavailable.
        usage.record("maintenance", { ...NO_TOKENS, phase: "embed", model: model.model, served_model: model.model, usage_available: false }))

    const spaceOf = (model: ActiveEmbedder) =>
      Effect.flatMap(Ref.get(learnt), Option.match({
        onSome: Effect.succeed,
        onNone: () =>
          Effect.flatMap(embed(model, ["dimension probe"]), (vectors) => {
            const space = { model: model.model, dimensions: vectors[0]?.length ?? 0 }
            return Effect.as(Ref.set(learnt, Option.some(space)), space)
          })
      }))

    const vectorsFor = (model: ActiveEmbedder, space: VectorSpace, rows: ReadonlyArray<RowToEmbed>) =>
      Effect.flatMap(embed(model, rows.map((row) => row.content)), (vectors) =>
        vectors.length === rows.length && vectors.every((vector) => vector.length === space.dimensions)
          ? Effect.succeed(rows.map((row, i) => ({ ...row, vector: vectors[i]! })))
          : Effect.fail(
            new ProviderUnavailable({
              message: `the embedder answered vectors other than ${rows.length} of ${space.dimensions} dimensions`,
              details: { model: space.model }
            })
          ))

    /** Embeds one user's backlog batch by batch until none is left or the deadline passes; an empty backlog completes a switch staged in full. */
    const embedUser = (userId: string, model: ActiveEmbedder, space: VectorSpace, batchSize: number, budget: Budget) =>
      Effect.gen(function*() {
        let embedded = 0
        while (true) {
          const rows = yield* store.reembed.backlog(userId, space, batchSize)
          if (rows.length === 0) {
            const done = yield* store.reembed.store(userId, space, [])
            return { held: true, embedded, remaining: done.remaining, switched: done.switched, cancelled: false } satisfies UserOutcome
          }
          if (budget.progressed && (yield* Clock.currentTimeMillis) >= budget.deadline) {
            return { held: true, embedded, remaining: yield* store.reembed.remaining(userId, space), switched: false, cancelled: true } satisfies UserOutcome
          }
          const outcome = yield* store.reembed.store(userId, space, yield* vectorsFor(model, space, rows))
          budget.progressed = true
          embedded += outcome.stored
          // Nothing stored: every row changed under the batch; the next run reads them as they are now.
          if (outcome.remaining === 0 || outcome.stored === 0) {
            return { held: true, embedded, remaining: outcome.remaining, switched: outcome.switched, cancelled: false } satisfies UserOutcome
          }
        }
      }).pipe(span("Reembedding.user", { attributes: { user_id: userId } }))

    /** One user's run under their maintenance lock, shared with dream: one run a user at a time, across processes. */
    const lockedRun = (userId: string, model: ActiveEmbedder, space: VectorSpace, batchSize: number, budget: Budget) =>
      Effect.scoped(Effect.gen(function*() {
        if (yield* store.maintenanceLock(userId)) return yield* embedUser(userId, model, space, batchSize, budget)
        return { held: false, embedded: 0, remaining: yield* store.reembed.remaining(userId, space), switched: false, cancelled: false } satisfies UserOutcome
      }))

    const run = (request: EmbedRequest) =>
      Effect.gen(function*() {
        const model = yield* active
        const userId = request.user_id === undefined ? null : yield* validateUserId(request.user_id)
        const space = yield* spaceOf(model)
        const started = yield* Clock.currentTimeMillis
        const budget: Budget = {
          deadline: request.max_processing_time_sec > 0 ? started + request.max_processing_time_sec * 1000 : Number.POSITIVE_INFINITY,
          progressed: false
        }
        const users = userId !== null ? [userId] : (yield* store.inventory).users.map((user) => user.user_id)
        const outcomes = yield* Effect.forEach(users, (user) => lockedRun(user, model, space, request.batch_size, budget))
        return new EmbedResult({
          user_id: userId,
          status: outcomes.every((outcome) => outcome.held) ? "ok" : "already_running",
          model: space.model,
          dimensions: space.dimensions,
          embedded: outcomes.reduce((sum, outcome) => sum + outcome.embedded, 0),
          switched: outcomes.filter((outcome) => outcome.switched).length,
          cancelled: outcomes.some((outcome) => outcome.cancelled),
          remaining: outcomes.reduce((sum, outcome) => sum + outcome.remaining, 0)
        })
      }).pipe(span("Reembedding.embed"))

    return {
      embed: run,

      /** Validates and persists an embed job; the run itself may then find another one going. */
      accept: (request: EmbedRequest) =>
        Effect.gen(function*() {
          yield* active
          const userId = request.user_id === undefined ? EVERY_USER : yield* validateUserId(request.user_id)
          const jobId = yield* jobs.submit("embed", userId, Schema.encodeSync(EmbedJobPayload)({ request }))
          return new JobStarted({ job_id: jobId, status: "pending" })
        }),

      runJob: jobHandler(EmbedJobPayload, EmbedResult, ({ request }) => run(request))
    } as const
  })
}) {}
