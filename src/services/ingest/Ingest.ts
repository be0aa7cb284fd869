import { Effect, Option, Schema } from "effect"
import { ConfigInvalid } from "../../api/errors.js"
import { AddMemoriesResult, type AddMemoriesRequest, JobAccepted } from "../../api/MemoriesApi.js"
import type { AuditContext } from "../../domain/audit.js"
import type { CleanFact } from "../../domain/facts.js"
import { newSessionId } from "../../domain/ids.js"
import { validateUserId } from "../../domain/userId.js"
import { Embedder } from "../../llm/Embedder.js"
import { LlmProvider } from "../../llm/LlmProvider.js"
import type { ActiveLlm } from "../../llm/types.js"
import { normalizeText } from "../../domain/text.js"
import type { FactPlan } from "../../storage/sessionWrite.js"
import { UserStore } from "../../storage/UserStore.js"
import { jobHandler } from "../jobs/jobHandler.js"
import { Jobs } from "../jobs/Jobs.js"
import { resolveSessionTime } from "../memories/memoryRecords.js"
import { embedForWrite, embeddingModel } from "./embedWrites.js"
import { extractFacts } from "./Extractor.js"
import { lexicalCandidates, reconcileFacts } from "./reconciliation.js"
import { span } from "../../util/span.js"

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
  // Jobs accepted before extraction existed carry no flag: they stored turns verbatim.
  infer: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  audit: Schema.Struct({ actor: Schema.String, requestId: Schema.NullOr(Schema.String) })
})
export type PreparedIngest = typeof PreparedIngest.Type

/** "" means unset on the routes that honour scope keys. */
const scopeValue = (value: string | null | undefined) => (value === undefined || value === "" ? null : value)

/**
 * Waits for what is already under way on the event loop to be sent (a provider request being
 * written): a store's calls may run synchronously (the embedded SQLite's do), and would
 * otherwise hold the request back.
 */
const pendingIo = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/** One fact per statement: a model that says the same thing twice in a session is heard once. */
const distinctFacts = (facts: ReadonlyArray<CleanFact>) => [...new Map(facts.map((fact) => [normalizeText(fact.statement), fact])).values()]

/**
 * Writes conversations into users' stores. infer=false keeps the turns verbatim (no LLM at
 * all); infer=true also extracts facts with the configured LLM and reconciles them with what the
 * store already knows. Provider calls happen before the write's transaction, which holds the
 * turns, the facts, their audit events and (for a job) its applied mark: all or nothing.
 */
export class Ingest extends Effect.Service<Ingest>()("Memory/Ingest", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const jobs = yield* Jobs
    const embedder = yield* Embedder
    const llm = yield* LlmProvider

    const extractorNeeded = new ConfigInvalid({
      message: `extraction (infer=true) needs an LLM provider: ${llm.reason}; or send infer=false to store the turns verbatim`,
      details: { infer: true }
    })

    /** The configured LLM, or why extraction cannot run. */
    const requireLlm = Option.match(llm.active, { onNone: () => Effect.fail(extractorNeeded), onSome: Effect.succeed })

    const prepare = (request: Omit<AddMemoriesRequest, "async_mode">, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* validateUserId(request.user_id)
        const sessionTime = yield* resolveSessionTime(request.session_time)
        if (request.infer) yield* requireLlm
        return {
          userId,
          sessionId: request.session_id ?? newSessionId(),
          sessionTime,
          turns: request.messages.filter((message) => message.content.trim() !== ""),
          scope: { agent_id: scopeValue(request.agent_id), run_id: scopeValue(request.run_id), project_id: scopeValue(request.project_id) },
          infer: request.infer,
          audit
        } satisfies PreparedIngest
      })

    /**
     * Extracted facts, each with its vector and what to do with it, and the turns' vectors: turns
     * and facts are embedded in one provider call, sent before the facts' lexical candidates are
     * looked up so that the lookups run while the provider computes.
     */
    const planFacts = (active: ActiveLlm, prepared: PreparedIngest) =>
      Effect.gen(function*() {
        const extracted = yield* extractFacts(active, prepared)
        const facts = distinctFacts(extracted.facts)
        const turnCount = prepared.turns.length
        const [vectors, lexical] = yield* Effect.all([
          embedForWrite(embedder.active, [...prepared.turns.map((turn) => turn.content), ...facts.map((fact) => fact.statement)]),
          Effect.zipRight(pendingIo, lexicalCandidates(store, prepared.userId, facts, prepared.scope))
        ], { concurrency: 2 })
        const factVectors = Option.map(vectors, (all) => all.slice(turnCount))
        const { decisions } = yield* reconcileFacts(active, store, { ...prepared, facts, lexical, vectors: factVectors, scope: prepared.scope })
        const plans = facts.map((fact, i): FactPlan => ({
          fact,
          decision: decisions[i]!,
          vector: Option.isSome(factVectors) ? factVectors.value[i] : undefined
        }))
        return { plans, turnVectors: Option.map(vectors, (all) => all.slice(0, turnCount)) }
      })

    const decodeResult = (text: string) => Schema.decodeUnknown(Schema.parseJson(AddMemoriesResult))(text).pipe(Effect.orDie)

    const apply = (prepared: PreparedIngest, jobId: string | null) =>
      Effect.gen(function*() {
        // A resumed job whose write committed before the crash is answered without calling anyone.
        if (jobId !== null) {
          const applied = yield* store.appliedJob(prepared.userId, jobId)
          if (Option.isSome(applied)) return yield* decodeResult(applied.value)
        }
        const { plans, turnVectors } = prepared.infer
          ? yield* Effect.flatMap(requireLlm, (active) => planFacts(active, prepared))
          : { plans: [], turnVectors: yield* embedForWrite(embedder.active, prepared.turns.map((turn) => turn.content)) }
        const extractedBy = Option.match(llm.active, {
          onNone: () => ({}),
          onSome: (active) => ({ provider: active.provider, model: active.model })
        })
        // Every turn sent is written: the counts are known before the write.
        const turnsWritten = prepared.turns.length
        const result = new AddMemoriesResult({
          session_id: prepared.sessionId,
          facts_extracted: plans.length,
          spans_written: turnsWritten,
          turns_written: turnsWritten
        })
        const outcome = yield* store.writeSession(prepared.userId, {
          ...prepared,
          turnVectors: Option.getOrUndefined(turnVectors),
          embeddingModel: embeddingModel(embedder.active),
          plans,
          extractedBy
        }, {
          events: [{
            type: "memory_add",
            memoryId: null,
            sessionId: prepared.sessionId,
            reason: prepared.infer
              ? `${turnsWritten} turns stored, ${plans.length} facts extracted`
              : `${turnsWritten} turns stored verbatim (infer=false)`,
            details: {
              action: "store_turns",
              infer: prepared.infer,
              turns_written: turnsWritten,
              facts_extracted: plans.length,
              job_id: jobId
            },
            scope: prepared.scope
          }],
          job: jobId === null ? null : { id: jobId, result: JSON.stringify(Schema.encodeSync(AddMemoriesResult)(result)) }
        })
        return outcome._tag === "AlreadyApplied" ? yield* decodeResult(outcome.result) : result
      })

    return {
      prepare,
      apply,

      /** Ingests and answers with the counts (async_mode false). */
      now: (request: AddMemoriesRequest, audit: AuditContext) =>
        Effect.flatMap(prepare(request, audit), (prepared) => apply(prepared, null)).pipe(span("Ingest.now")),

      /** Validates, opens the user's store, persists the job and answers before any write (async_mode true). */
      accept: (request: AddMemoriesRequest, audit: AuditContext) =>
        Effect.gen(function*() {
          const prepared = yield* prepare(request, audit)
          yield* store.provision(prepared.userId)
          const jobId = yield* jobs.submit("ingest", prepared.userId, Schema.encodeSync(PreparedIngest)(prepared))
          return new JobAccepted({ job_id: jobId, status: "pending", session_id: prepared.sessionId })
        }).pipe(span("Ingest.accept")),

      /** Runs an accepted ingest job; safe to run again after a crash. */
      runJob: jobHandler(PreparedIngest, AddMemoriesResult, apply)
    } as const
  })
}) {}
