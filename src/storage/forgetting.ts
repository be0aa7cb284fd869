import { ELISION, hasWords, REDACTION, withoutMemories } from "../domain/excerpts.js"
import { factMetadata, type FactRow } from "../domain/records.js"
import type { PurgeCascade } from "./UserStore.js"

// What archiving or purging memories does to the turns they were taken from, the same on every
// backend: a backend reads the turns and the memories linked to them, and writes back what this
// decides, in the transaction that archives or purges.

/** A turn as stored: `content` as shown, and the text as recorded when it differs (archived memories elided). */
export interface StoredTurnText {
  readonly seq: number
  readonly content: string
  readonly recorded_content: string | null
}

const namesAny = (ids: unknown, factIds: ReadonlySet<string>) => Array.isArray(ids) && ids.some((id) => typeof id === "string" && factIds.has(id))

/**
 * The profiles (an entity's summary) that cite any of the facts or were built from any of them
 * (a summary may repeat a fact it does not cite), those facts aside.
 */
export const profilesCiting = (profiles: ReadonlyArray<FactRow>, factIds: ReadonlySet<string>) =>
  profiles.filter((profile) => {
    const metadata = factMetadata(profile)
    return !factIds.has(profile.fact_id) && (namesAny(metadata.citations, factIds) || namesAny(metadata.sources, factIds))
  })

/** What erasing facts removed with them: none of anything yet. */
export const NOTHING_ERASED = { vectors: 0, fact_entity_roles: 0, fact_edges: 0, fact_sources: 0 }

/** What a purge reports, from what erasing its facts removed; the reference service's names for the same counts are set here only, for every backend. */
export const purgeCascade = (erased: typeof NOTHING_ERASED, versions: number, turnsRedacted: number): PurgeCascade => ({
  chroma_vectors: erased.vectors,
  fact_events: versions,
  ...erased,
  versions,
  turns_redacted: turnsRedacted
})

/** What purging an unknown memory reports. */
export const NOTHING_PURGED = purgeCascade(NOTHING_ERASED, 0, 0)

/** A memory's statement, linked to a turn it was taken from. */
export interface TurnLink {
  readonly seq: number
  readonly statement: string
}

/** A turn to write back: its new text, and whether it still says enough to be embedded again (its old vector goes). */
export interface TurnRewrite extends StoredTurnText {
  readonly embed: boolean
}

/** A passage taken out of a turn, and what stands in its place. */
export interface RemovedPassage {
  readonly text: string
  readonly marker: string
}

/** The statements linked to each turn. */
const statementsByTurn = (links: ReadonlyArray<TurnLink>) => {
  const byTurn = new Map<number, Array<string>>()
  for (const { seq, statement } of links) {
    const statements = byTurn.get(seq)
    if (statements === undefined) byTurn.set(seq, [statement])
    else statements.push(statement)
  }
  return byTurn
}

/**
 * The turns rewritten: the words of `purged` memories replaced in the recorded text by the
 * redaction marker, then those of every `archived` memory linked to the turn elided from the
 * text shown. Only turns that change are answered, with every passage taken out.
 */
export const rewriteTurns = (
  turns: ReadonlyArray<StoredTurnText>,
  links: { readonly purged: ReadonlyArray<TurnLink>; readonly archived: ReadonlyArray<TurnLink> }
) => {
  const rewrites: Array<TurnRewrite> = []
  const removed: Array<RemovedPassage> = []
  const purged = statementsByTurn(links.purged), archived = statementsByTurn(links.archived)
  for (const turn of turns) {
    const recorded = turn.recorded_content ?? turn.content
    const redacted = withoutMemories(recorded, purged.get(turn.seq) ?? [], REDACTION)
    const shown = withoutMemories(redacted.text, archived.get(turn.seq) ?? [], ELISION)
    removed.push(...redacted.removed.map((text) => ({ text, marker: REDACTION })), ...shown.removed.map((text) => ({ text, marker: ELISION })))
    if (shown.text === turn.content && redacted.text === recorded) continue
    rewrites.push({
      seq: turn.seq,
      content: shown.text,
      recorded_content: shown.text === redacted.text ? null : redacted.text,
      embed: hasWords(shown.text)
    })
  }
  return { rewrites, removed }
}

/**
 * What forgetting takes out wherever the words were copied: the passages taken out of the turns
 * and the memories' statements, with the marker of the mode (`[redacted]` for a purge, `[…]` for
 * an archive).
 */
export const forgottenWords = (
  mode: "archive" | "purge",
  removed: ReadonlyArray<RemovedPassage>,
  facts: ReadonlyArray<{ readonly content: string }>
): ReadonlyArray<RemovedPassage> => {
  const marker = mode === "purge" ? REDACTION : ELISION
  return [...removed.filter((passage) => passage.marker === marker), ...facts.map((fact) => ({ text: fact.content, marker }))]
}

/** Text with every removed passage replaced by its marker. */
export const withoutPassages = (text: string, removed: ReadonlyArray<RemovedPassage>) =>
  removed.reduce((kept, passage) => passage.text === "" ? kept : kept.replaceAll(passage.text, passage.marker), text)

/**
 * A memory's metadata with the removed passages taken out of its support text (a copy of its
 * source turns made when it was written); none when nothing changes.
 */
export const scrubbedMetadata = (metadata: string, removed: ReadonlyArray<RemovedPassage>): string | undefined => {
  const parsed = factMetadata({ metadata })
  const support = parsed.support_text
  if (typeof support !== "string") return undefined
  const kept = withoutPassages(support, removed)
  return kept === support ? undefined : JSON.stringify({ ...parsed, support_text: kept })
}

/**
 * An event about a purged memory, keeping its type, ids and action but none of the memory's
 * words: a statement it quoted goes, and any removed passage or statement in its reason is replaced.
 */
export const scrubbedEvent = (
  event: { readonly reason: string | null; readonly details: string },
  words: ReadonlyArray<RemovedPassage>
) => {
  // Event details are a JSON object, as metadata is.
  const details = { ...factMetadata({ metadata: event.details }) }
  delete details.statement
  return { reason: event.reason === null ? null : withoutPassages(event.reason, words), details: JSON.stringify(details) }
}

/** The rewritten turns that still say something, to embed again. */
export const toEmbed = (rewrites: ReadonlyArray<TurnRewrite>) => rewrites.flatMap((turn) => turn.embed ? [{ seq: turn.seq, content: turn.content }] : [])

const withoutPassagesIn = (value: unknown, removed: ReadonlyArray<RemovedPassage>): unknown => {
  if (typeof value === "string") return withoutPassages(value, removed)
  if (Array.isArray(value)) return value.map((item) => withoutPassagesIn(item, removed))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutPassagesIn(item, removed)]))
  }
  return value
}

/** A JSON document (a job's result) with the removed passages taken out of every string in it; none when nothing changes. */
export const scrubbedJson = (json: string, removed: ReadonlyArray<RemovedPassage>): string | undefined => {
  const kept = JSON.stringify(withoutPassagesIn(JSON.parse(json), removed))
  return kept === JSON.stringify(JSON.parse(json)) ? undefined : kept
}

/** The jobs whose results held removed passages, with their results without them. */
export const scrubbedResults = (jobs: ReadonlyArray<{ readonly job_id: string; readonly result: string }>, removed: ReadonlyArray<RemovedPassage>) =>
  jobs.flatMap((job) => {
    const result = scrubbedJson(job.result, removed)
    return result === undefined ? [] : [{ job_id: job.job_id, result }]
  })
