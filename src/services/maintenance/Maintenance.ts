import { Clock, Effect, Option, Schema } from "effect"
import { NotImplemented } from "../../api/errors.js"
import { DreamRequest, DreamResult } from "../../api/MaintenanceApi.js"
import { LlmProvider } from "../../llm/LlmProvider.js"
import { PROFILE_PROMPT } from "../../llm/prompts.js"
import { type EvidenceLine, Profile, type ProfileInput } from "../../llm/tasks.js"
import { JobStarted } from "../../api/JobsApi.js"
import type { AuditContext } from "../../domain/audit.js"
import { newFactId } from "../../domain/ids.js"
import { validateUserId } from "../../domain/userId.js"
import { profileScopes } from "../../domain/profileScopes.js"
import type { FactRow, NewFact, ScopeFilter, StaleEntity } from "../../domain/records.js"
import { UserStore } from "../../storage/UserStore.js"
import { utcTimestamp } from "../../util/timestamps.js"
import { jobHandler } from "../jobs/jobHandler.js"
import { Jobs } from "../jobs/Jobs.js"
import { span } from "../../util/span.js"

/** A dream job keeps the request as it was sent, defaults applied, and who asked. */
const DreamJobPayload = Schema.Struct({
  request: DreamRequest,
  audit: Schema.Struct({ actor: Schema.String, requestId: Schema.NullOr(Schema.String) })
})

const DIGEST_FACTS = 5

/** A profile to write: its text, the facts it cites and what made it. */
interface Draft {
  readonly summary: string
  readonly citations: ReadonlyArray<string>
  readonly generatedBy: Record<string, unknown>
}

const line = (fact: FactRow): EvidenceLine => ({ id: fact.fact_id, text: fact.content, date: fact.occurred_at ?? fact.valid_from ?? "" })

/** Without an LLM: the newest facts, as they are, each cited. */
const digest = (entity: StaleEntity, facts: ReadonlyArray<FactRow>) => {
  const used = facts.slice(0, DIGEST_FACTS)
  return { summary: `${entity.name}: ${used.map((fact) => fact.content).join(" ")}`, citations: used.map((fact) => fact.fact_id) }
}

/**
 * Maintenance of a user's store, run only when asked (never scheduled by the service). Dream
 * rebuilds the profiles of stale entities: one per scope of the entity's facts, each a memory of
 * kind `profile` about its entity, citing the facts it summarizes and superseding the previous
 * profile of its scope. Each entity is one transaction that also clears its stale mark, so a run
 * cut short (deadline or crash) leaves exactly the unprocessed entities stale, and the next run
 * takes them up.
 */
export class Maintenance extends Effect.Service<Maintenance>()("Memory/Maintenance", {
  effect: Effect.gen(function*() {
    const store = yield* UserStore
    const llm = yield* LlmProvider
    const jobs = yield* Jobs

    /** A profile for an entity from some of its current facts (at least one). */
    const profileOf = (entity: StaleEntity, facts: ReadonlyArray<FactRow>) =>
      Option.match(llm.active, {
          onNone: () => Effect.succeed<Draft>({ ...digest(entity, facts), generatedBy: { method: "digest" } }),
          onSome: (active) =>
            Effect.map(
              active.generate({
                operation: "maintenance",
                phase: "profile",
                system: PROFILE_PROMPT,
                input: { entity: entity.name, facts: facts.map(line) } satisfies ProfileInput,
                schemaName: "entity_profile",
                schema: Profile,
                maxTokens: 800,
                temperature: 0
              }),
              ({ value }): Draft => {
                // Only facts the model was shown can be cited.
                const shown = new Set(facts.map((fact) => fact.fact_id))
                return {
                  summary: value.summary.trim() === "" ? digest(entity, facts).summary : value.summary.trim(),
                  citations: value.citations.filter((id) => shown.has(id)),
                  generatedBy: { provider: active.provider, model: active.model }
                }
              }
            )
        })

    /** A new profile as a memory of kind `profile` about its entity, from today, stamped with the scope it was built for. */
    const profileFact = (entity: StaleEntity, scope: ScopeFilter, facts: ReadonlyArray<FactRow>, profile: Draft, today: string): NewFact => ({
      factId: newFactId(),
      content: profile.summary,
      kind: "profile",
      sessionId: null,
      occurredAt: null,
      validFrom: today,
      confidence: 1,
      metadata: {
        profile_of: entity.entity_id,
        citations: profile.citations,
        sources: facts.map((fact) => fact.fact_id),
        generated_by: profile.generatedBy
      },
      scope,
      spanIds: [],
      entities: [{ name: entity.name, role: "subject" }],
      predicate: "profile"
    })

    /**
     * Rebuilds an entity's profiles, one per scope of its current facts, and settles them in one
     * transaction, which writes nothing if the entity or a fact went meanwhile.
     */
    const rebuild = (userId: string, entity: StaleEntity, audit: AuditContext) =>
      Effect.gen(function*() {
        const facts = yield* store.profileFacts(userId, entity.entity_id)
        const today = utcTimestamp(yield* Clock.currentTimeMillis).slice(0, 10)
        const profiles = yield* Effect.forEach(profileScopes(facts), ({ facts: shown, scope }) =>
          Effect.map(profileOf(entity, shown), (draft) => ({ fact: profileFact(entity, scope, shown, draft, today), citations: draft.citations })))
        return yield* store.settleProfile(userId, { entity, profiles, sources: facts.map((fact) => fact.fact_id), audit })
      })

    const run = (userId: string, request: DreamRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const started = yield* Clock.currentTimeMillis
        const deadline = request.max_processing_time_sec > 0 ? started + request.max_processing_time_sec * 1000 : Number.POSITIVE_INFINITY
        const stale = yield* store.staleEntities(userId, request.priority_order, request.batch_size)
        let processed = 0, written = 0, superseded = 0, cancelled = false
        for (const entity of stale) {
          // Checked between entities only: every run rebuilds at least one, so runs under a short deadline still progress.
          if (processed > 0 && (yield* Clock.currentTimeMillis) >= deadline) {
            cancelled = true
            break
          }
          const outcome = yield* rebuild(userId, entity, audit)
          processed += 1
          written += outcome.written
          superseded += outcome.superseded
        }
        return new DreamResult({
          user_id: userId,
          status: "ok",
          entities_processed: processed,
          profiles_written: written,
          profiles_superseded: superseded,
          cancelled,
          remaining_stale: yield* store.staleCount(userId)
        })
      })

    /** The user a dream is for: scope keys cannot narrow it (501), and the id must pass the allowlist. */
    const dreamer = (request: DreamRequest) =>
      Effect.gen(function*() {
        const narrowed = (["agent_id", "run_id", "project_id"] as const).filter((key) => request[key] !== undefined && request[key] !== null)
        if (narrowed.length > 0) {
          return yield* new NotImplemented({
            message: `${narrowed.join(", ")} cannot narrow dream: a run rebuilds the profiles of every scope of a user`,
            details: { scope_keys: narrowed }
          })
        }
        return yield* validateUserId(request.user_id)
      })

    const dream = (request: DreamRequest, audit: AuditContext) =>
      Effect.gen(function*() {
        const userId = yield* dreamer(request)
        return yield* Effect.scoped(Effect.gen(function*() {
          // One run a user at a time, across every process on the same storage.
          if (yield* store.maintenanceLock(userId)) return yield* run(userId, request, audit)
          return new DreamResult({
            user_id: userId,
            status: "already_running",
            entities_processed: 0,
            profiles_written: 0,
            profiles_superseded: 0,
            cancelled: false,
            remaining_stale: yield* store.staleCount(userId)
          })
        }))
      }).pipe(span("Maintenance.dream"))

    return {
      dream,

      /** Validates and persists a dream job; the run itself may then find another one going. */
      accept: (request: DreamRequest, audit: AuditContext) =>
        Effect.gen(function*() {
          const userId = yield* dreamer(request)
          const jobId = yield* jobs.submit("dream", userId, Schema.encodeSync(DreamJobPayload)({ request, audit }))
          return new JobStarted({ job_id: jobId, status: "pending" })
        }),

      runJob: jobHandler(DreamJobPayload, DreamResult, ({ audit, request }) => dream(request, audit))
    } as const
  })
}) {}
