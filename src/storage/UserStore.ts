import { Context, type Effect, type Either, type Option, type Scope, type Stream } from "effect"
import type { InvalidScope, StoreUnavailable } from "../api/errors.js"
import type { AuditContext } from "../domain/audit.js"
import type {
  EdgeRow,
  EventRow,
  FactRow,
  NewEvent,
  NewFact,
  Page,
  PriorityOrder,
  Provenance,
  ScopeFilter,
  Scored,
  StaleEntity,
  TurnRow,
  VectorSpace
} from "../domain/records.js"
import type { RemovedPassage } from "./forgetting.js"
import type { SessionWrite, SessionWritten } from "./sessionWrite.js"
import type { RowBatch, RowPage, UserTable } from "./transfer/records.js"

/** Why an operation on a user's data could not run: a user_id that names no valid scope, or a store that cannot be opened. */
export type StoreError = InvalidScope | StoreUnavailable

type Op<A> = Effect.Effect<A, StoreError>

/** A fact with the turns it was taken from and the entities it names. */
export interface FactWithProvenance {
  readonly fact: FactRow
  readonly sources: Provenance["sources"]
  readonly roles: Provenance["roles"]
}

/** What the retrieval legs are asked: the query as retrieval analysed it, and how much each leg may return. */
export interface RecallQuery {
  /** The query's content words, lower-cased; a backend stems and weighs them as its lexical index does. */
  readonly terms: ReadonlyArray<string>
  /** Word n-grams of the query, normalized as entity names are. */
  readonly names: ReadonlyArray<string>
  /** The most precise date the query names, as a local-time prefix (`2023-05`), if any. */
  readonly datePrefix: string | null
  /** The query's vector, or why there is none. */
  readonly vector: Either.Either<Float32Array, string>
  readonly scope: ScopeFilter
  readonly statuses: ReadonlyArray<string>
  /** Candidates each leg returns at most. */
  readonly depth: number
  /** Nearest neighbours the vector leg returns at most. */
  readonly vectorDepth: number
  /** The best lexical turns whose neighbours in their sessions are brought in. */
  readonly neighbourSeeds: number
  /** How many turns either side of each of those, in its session, are brought in. */
  readonly neighbourReach: number
}

/** Each leg's candidates, best first. */
export interface RecallLegs {
  readonly lexicalFacts: ReadonlyArray<FactRow>
  /** The turns by bm25, each with its score; equal scores in turn order. */
  readonly lexicalTurns: ReadonlyArray<Scored<TurnRow>>
  /** The nearest facts and turns, or why the vector leg could not run on this store. */
  readonly vector: Either.Either<{ readonly facts: ReadonlyArray<FactRow>; readonly turns: ReadonlyArray<TurnRow> }, string>
  readonly entityFacts: ReadonlyArray<FactRow>
  readonly datedFacts: ReadonlyArray<FactRow>
  readonly datedTurns: ReadonlyArray<TurnRow>
  /** The turns within the reach of the best lexical turns (those among them too) in their sessions, in turn order. */
  readonly neighbours: ReadonlyArray<TurnRow>
}

/** Whether a session was written now, or by an earlier run of the same job (its result as then recorded). */
export type SessionOutcome =
  | { readonly _tag: "Written"; readonly written: SessionWritten }
  | { readonly _tag: "AlreadyApplied"; readonly result: string }

/** A correction refused because its target is not a current fact within the scope (the target as found), or the new version. */
export type CorrectionOutcome =
  | { readonly _tag: "Refused"; readonly current: FactRow | undefined }
  | { readonly _tag: "Corrected"; readonly fact: FactRow }

/**
 * What purging a memory removed with it: its versions (the memory counted), their links, and the
 * turns whose words were redacted; and the same counts under the reference service's names, which
 * its clients read.
 */
export type PurgeCascade = {
  readonly vectors: number
  readonly fact_entity_roles: number
  readonly fact_edges: number
  readonly fact_sources: number
  readonly versions: number
  readonly turns_redacted: number
  /** `versions`: the reference's facts table is `fact_events`. */
  readonly fact_events: number
  /** `vectors`: the reference keeps them in Chroma. */
  readonly chroma_vectors: number
}

/**
 * A turn whose shown text changed when memories were forgotten: its vector went with the old
 * text, and it is embedded again from this one (`embedTurns`).
 */
export interface TurnToEmbed {
  readonly seq: number
  readonly content: string
}

/** What forgetting did, the turns it left to embed again, and the words it took out (to take out of copies kept elsewhere). */
export type Forgotten<A> = A & { readonly reembed: ReadonlyArray<TurnToEmbed>; readonly words: ReadonlyArray<RemovedPassage> }

/** A new profile of an entity (a memory of kind `profile`, stamped with its scope), citing the facts it sums up. */
export interface ProfileToWrite {
  readonly fact: NewFact
  readonly citations: ReadonlyArray<string>
}

/**
 * A stale entity's new profiles, one per scope of its current facts (none when it has none),
 * and every fact they were built from.
 */
export interface ProfileSettlement {
  readonly entity: StaleEntity
  readonly profiles: ReadonlyArray<ProfileToWrite>
  readonly sources: ReadonlyArray<string>
  readonly audit: AuditContext
}

/** What settling an entity did: nothing when it or its data went, or a source stopped being current, while its profiles were built. */
export interface ProfileSettled {
  readonly settled: boolean
  readonly written: number
  readonly superseded: number
}

/** An undelivered change in a user's webhook outbox: its audit event as it reads now, and its attempts so far. */
export interface OutboxEntry {
  readonly seq: number
  readonly attempts: number
  /** Not to be sent before (epoch ms). */
  readonly nextAttemptAt: number
  readonly event: EventRow
}

/** A user whose outbox may hold changes, and when the first is due (epoch ms). */
export interface OutboxUser {
  readonly userId: string
  readonly due: number
}

/**
 * Users' webhook outboxes. While webhooks are on, every audit event a write appends also enters
 * its user's outbox in the same unit of work; an entry leaves once delivered or refused.
 */
export interface OutboxOperations {
  /** The oldest undelivered entries (at most `limit`), and how many there are. */
  readonly head: (userId: string, limit: number) => Op<{ readonly entries: ReadonlyArray<OutboxEntry>; readonly total: number }>
  /** Removes the entries up to and including `seq`: those settled, in order. */
  readonly removeThrough: (userId: string, seq: number) => Op<void>
  readonly postpone: (userId: string, seq: number, attempts: number, nextAttemptAt: number) => Op<void>
  /** Drops the oldest entries beyond `keep`; how many. */
  readonly trim: (userId: string, keep: number) => Op<number>
  /**
   * Users whose outboxes may hold entries: every one with entries the first time (and, on a
   * backend shared by processes, each time), and since then those written to by this process.
   */
  readonly users: Effect.Effect<ReadonlyArray<OutboxUser>, StoreUnavailable>
  /** Holds the user's outbox for this process's deliveries, if no other process does: false when one does. */
  readonly claim: (userId: string) => Effect.Effect<boolean, StoreError, Scope.Scope>
  /** The user's undelivered events, oldest first, to be kept elsewhere before the user is erased. */
  readonly pending: (userId: string) => Op<ReadonlyArray<EventRow>>
  /** Waits for this process's next write of any user (at once if one came since the last wait). */
  readonly written: Effect.Effect<void>
}

/** A fact or turn as it reads now, to be embedded. */
export interface RowToEmbed {
  readonly index: "fact" | "turn"
  readonly seq: number
  readonly content: string
}

/**
 * Bringing a user's vectors to a vector space (the configured embedder's), batch by batch. While
 * the store's vectors are of another space, the new ones are staged apart and the old ones serve;
 * the staged ones replace them all at once when no row lacks one. A staged vector goes with its
 * row, and when its row's text changes.
 */
export interface ReembedOperations {
  /** Up to `limit` facts and turns with text that lack a vector of the space, facts first, oldest first. */
  readonly backlog: (userId: string, space: VectorSpace, limit: number) => Op<ReadonlyArray<RowToEmbed>>
  /** How many facts and turns with text lack a vector of the space. */
  readonly remaining: (userId: string, space: VectorSpace) => Op<number>
  /**
   * Stores vectors of the space as one unit, each only for a row that still reads as embedded and
   * still lacks one; once no row lacks one, a store of another space switches to this one in the
   * same unit. How many were stored, how many rows still lack one, and whether the store switched.
   */
  readonly store: (
    userId: string,
    space: VectorSpace,
    rows: ReadonlyArray<RowToEmbed & { readonly vector: Float32Array }>
  ) => Op<{ readonly stored: number; readonly remaining: number; readonly switched: boolean }>
}

/** What a load is asked to write: rows in the order of the transfer records, and the event recording it. */
export interface UserLoad<E> {
  /** The space of the rows' vectors; none when they carry none. */
  readonly space: VectorSpace | null
  readonly batches: Stream.Stream<RowBatch, E>
  /** The load's audit event, from the rows written to each table. */
  readonly event: (loaded: Readonly<Record<UserTable, number>>) => NewEvent
  readonly audit: AuditContext
}

/**
 * One user's data read page by page and loaded whole, as the transfer records of a migration
 * between backends: what export and import are built on.
 */
export interface PortabilityOperations {
  /** Whether the user holds any row. */
  readonly holds: (userId: string) => Op<boolean>
  /** The space of the user's vectors; none before the first. */
  readonly space: (userId: string) => Op<VectorSpace | null>
  /** A page of a table's rows in the table's order (USER_ORDER), turns and facts with their vectors when asked; empty for a user without data. */
  readonly page: (userId: string, table: UserTable, page: RowPage, vectors: boolean) => Op<RowBatch>
  /**
   * Writes the batches and the load's event as one unit into a user holding no row, the rows'
   * vectors in their space. A failure of the batches writes nothing; a user holding data is
   * refused (`Occupied`) before anything is read from them.
   */
  readonly load: <E>(userId: string, load: UserLoad<E>) => Effect.Effect<"Loaded" | "Occupied", StoreError | E>
}

/** The users a backend holds and the size of their data. */
export interface UserInventory {
  readonly users: ReadonlyArray<{ readonly user_id: string; readonly bytes: number }>
  readonly memoriesByStatus: Record<string, number>
}

/**
 * Every operation the services perform on one user's data, in the domain's words. Each write is
 * one unit of work that includes its audit events; a read of a user with no data answers empty
 * (and never creates anything). Infrastructure failures are defects; a backend maps a store it
 * cannot open to `StoreUnavailable`.
 */
export interface UserStoreOperations {
  /** Makes sure the user's store exists, so a job accepted for them can write. */
  readonly provision: (userId: string) => Op<void>
  /** Removes everything of one user; false when there was nothing. */
  readonly erase: (userId: string) => Op<boolean>

  /**
   * Writes a session (turns, facts with their entities, edges and vectors, and their events),
   * then `events`, as one unit. With a job, the job's result is recorded in the same unit, and a
   * job already applied is not written again.
   */
  readonly writeSession: (
    userId: string,
    write: SessionWrite,
    options: { readonly events: ReadonlyArray<NewEvent>; readonly job: { readonly id: string; readonly result: string } | null }
  ) => Op<SessionOutcome>
  /**
   * Supersedes a memory by a corrected version written as a one-turn session, as one unit; the
   * plan at `winner` replaces it. Refused unless the memory is active and within `scope` when the
   * write runs. The session takes the scope stamps of the memory it corrects.
   */
  readonly correct: (
    userId: string,
    correction: { readonly memoryId: string; readonly scope: ScopeFilter; readonly session: Omit<SessionWrite, "scope">; readonly winner: number }
  ) => Op<CorrectionOutcome>
  /**
   * Archives a memory, the versions it superseded and the profiles citing them, with its event:
   * their records stay, and their words are elided from the turns they came from as those are
   * shown, searched and embedded. Whether it was archived already, and the words elided; none
   * when there is no such memory.
   */
  readonly archive: (userId: string, memoryId: string, audit: AuditContext) => Op<Option.Option<Forgotten<{ readonly already: boolean }>>>
  /**
   * Erases a memory, the versions it superseded and the profiles citing them, with its event:
   * their words are redacted from the turns they came from and from the events about them. What
   * went with it, and the words taken out (to take out of copies kept elsewhere); none when there
   * is no such memory.
   */
  readonly purge: (
    userId: string,
    memoryId: string,
    audit: AuditContext
  ) => Op<Option.Option<Forgotten<{ readonly cascaded: PurgeCascade }>>>
  /**
   * The words `purge` would take out of the memory's turns, read without changing anything (to
   * take them out of copies kept elsewhere first, so that a purge cut off between the two leaves
   * none behind); none when there is no such memory.
   */
  readonly purgeWords: (userId: string, memoryId: string) => Op<ReadonlyArray<RemovedPassage>>
  /** Archives every memory of the user, as `archive` does, with one event; how many were current, none when the user has no store. */
  readonly archiveAll: (userId: string, audit: AuditContext) => Op<Option.Option<Forgotten<{ readonly archived: number }>>>
  /**
   * Stores turns' new vectors, each only if the turn still reads as it did when embedded (else
   * it is left for the write that changed it).
   */
  readonly embedTurns: (
    userId: string,
    model: string,
    turns: ReadonlyArray<TurnToEmbed & { readonly vector: Float32Array }>
  ) => Op<void>
  /**
   * Settles a stale entity as one unit: writes its new profiles, each superseding the current
   * profile of its scope, archives its current profiles of scopes with no new one, and clears its
   * stale mark. Only while the entity is still there and every source fact is still current (an
   * erase, archive or purge may have come while the profiles were built): otherwise nothing is
   * written, and a user's data is never created.
   */
  readonly settleProfile: (userId: string, settle: ProfileSettlement) => Op<ProfileSettled>

  /** The recorded result of a job whose writes are committed, if any. */
  readonly appliedJob: (userId: string, jobId: string) => Op<Option.Option<string>>
  /** A fact by id, whatever its status. */
  readonly fact: (userId: string, factId: string) => Op<Option.Option<FactRow>>
  /** A fact by id with the entities it names and their roles. */
  readonly factWithEntities: (
    userId: string,
    factId: string
  ) => Op<{ readonly fact: FactRow | undefined; readonly entities: ReadonlyArray<{ readonly name: string; readonly role: string }> }>
  /** Current memories in the order written; those of expiring kinds past their validity left out. */
  readonly currentFacts: (
    userId: string,
    options: { readonly scope: ScopeFilter; readonly now: string; readonly offset: number; readonly limit: number }
  ) => Op<Page<FactRow>>
  /** Audit events, newest first, optionally of one type; scope narrows them as it narrows facts. */
  readonly events: (
    userId: string,
    options: { readonly type: string | null; readonly scope: ScopeFilter; readonly offset: number; readonly limit: number }
  ) => Op<Page<EventRow>>

  /** Every retrieval leg over the user's data; none when the user has no data. */
  readonly recall: (userId: string, query: RecallQuery) => Op<Option.Option<RecallLegs>>
  /** The source turns and entity roles of facts. */
  readonly provenance: (userId: string, factIds: ReadonlyArray<string>) => Op<Provenance>
  /** For each list of terms, the current facts that share the most selective of them, best first. */
  readonly similarFacts: (
    userId: string,
    options: { readonly terms: ReadonlyArray<ReadonlyArray<string>>; readonly scope: ScopeFilter; readonly limit: number }
  ) => Op<ReadonlyArray<ReadonlyArray<FactRow>>>
  /** For each vector, the nearest current facts; none for vectors of another dimension than the store's. */
  readonly nearestFacts: (
    userId: string,
    options: { readonly vectors: ReadonlyArray<Float32Array>; readonly scope: ScopeFilter; readonly limit: number }
  ) => Op<ReadonlyArray<ReadonlyArray<FactRow>>>

  /** Every fact of the entities whose names contain the needle (at most `entities` of them), oldest first. */
  readonly entityTimeline: (
    userId: string,
    options: { readonly needle: string; readonly scope: ScopeFilter; readonly entities: number }
  ) => Op<ReadonlyArray<FactWithProvenance>>
  /**
   * The graph around a fact (the walk of `storage/graphWalk.ts`): how many edges it found, the
   * first `limit` of them in order, and the facts they join, the start first; none when the start
   * is not a fact within scope.
   */
  readonly explore: (
    userId: string,
    options: { readonly startId: string; readonly scope: ScopeFilter; readonly depth: number; readonly limit: number }
  ) => Op<Option.Option<{ readonly found: number; readonly edges: ReadonlyArray<EdgeRow>; readonly nodes: ReadonlyArray<FactWithProvenance> }>>

  /** Entities whose profiles need rebuilding, in the order asked. */
  readonly staleEntities: (userId: string, order: PriorityOrder, limit: number) => Op<ReadonlyArray<StaleEntity>>
  readonly staleCount: (userId: string) => Op<number>
  /** An entity's current facts to profile it from, newest first, its own profiles left out. */
  readonly profileFacts: (userId: string, entityId: string) => Op<ReadonlyArray<FactRow>>
  /**
   * Takes the user's maintenance lock for the scope, if no run holds it in any process sharing
   * the backend: false when one does. A process that dies gives its locks up.
   */
  readonly maintenanceLock: (userId: string) => Effect.Effect<boolean, StoreError, Scope.Scope>

  readonly outbox: OutboxOperations
  readonly reembed: ReembedOperations
  readonly portability: PortabilityOperations

  /** Every user with data, for operators. */
  readonly inventory: Effect.Effect<UserInventory, StoreUnavailable>
  /** User stores held open now (a backend without per-user stores reports 0). */
  readonly openStores: Effect.Effect<number>
}

/** The storage of users' data: one port, one adapter per backend. */
export class UserStore extends Context.Tag("Memory/UserStore")<UserStore, UserStoreOperations>() {}
