import { Effect } from "effect"
import type { CleanFact } from "../../domain/facts.js"
import { normalizeName } from "../../domain/text.js"
import { EXTRACTION_PROMPT } from "../../llm/prompts.js"
import { Extraction, type ExtractedFact, type ExtractionInput } from "../../llm/tasks.js"
import type { ActiveLlm } from "../../llm/types.js"
import { span } from "../../util/span.js"

/** A session as extraction reads it: turns numbered from 1 in the order they were sent. */
export interface SessionInput {
  readonly sessionId: string
  readonly sessionTime: string
  readonly turns: ReadonlyArray<{ readonly role: string; readonly content: string }>
}

// A long session goes in parts small enough for any model's context and output.
const CHUNK_TURNS = 40
const CHUNK_CHARS = 12_000

const PRECISION: ReadonlyArray<readonly [RegExp, CleanFact["timePrecision"]]> = [
  [/^\d{4}$/, "year"],
  [/^\d{4}-\d{2}$/, "month"],
  [/^\d{4}-\d{2}-\d{2}$/, "day"],
  [/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/, "minute"]
]

/**
 * The longest entity name kept, as written and as normalized (compatibility forms can expand a
 * character into many: U+FDFA into 18). A name is part of its entity's id, which PostgreSQL keeps
 * in B-tree indexes whose entries cannot pass 2704 bytes; no name of a person, place or thing
 * comes near it, and a longer one (a model led astray by what it read) is left out, its fact kept.
 */
const MAX_ENTITY_NAME = 200

const keptName = (name: string) => name !== "" && name.length <= MAX_ENTITY_NAME && normalizeName(name).length <= MAX_ENTITY_NAME

const clean = (fact: ExtractedFact, turnCount: number): CleanFact | undefined => {
  const statement = fact.statement.replace(/\s+/g, " ").trim()
  if (statement === "") return undefined
  const occurred = fact.occurred.trim()
  const precision = PRECISION.find(([pattern]) => pattern.test(occurred))?.[1] ?? null
  return {
    statement,
    kind: fact.kind,
    confidence: Number.isFinite(fact.confidence) ? Math.min(1, Math.max(0, fact.confidence)) : 0.5,
    occurred: precision === null ? null : occurred,
    timePrecision: precision,
    turns: [...new Set(fact.source_turns.filter((turn) => turn >= 1 && turn <= turnCount))],
    entities: fact.entities.map((entity) => ({ name: entity.name.trim(), role: entity.role }))
      .filter((entity) => keptName(entity.name)),
    predicate: fact.predicate.trim().toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_|_$/g, "")
  }
}

/** Consecutive parts of a session's turns, each within the turn and character bounds. */
const chunks = <T extends { readonly content: string }>(turns: ReadonlyArray<T>) => {
  const parts: Array<Array<{ readonly turn: number; readonly value: T }>> = [[]]
  let chars = 0
  turns.forEach((value, i) => {
    const current = parts[parts.length - 1]!
    if (current.length > 0 && (current.length === CHUNK_TURNS || chars + value.content.length > CHUNK_CHARS)) {
      parts.push([])
      chars = 0
    }
    parts[parts.length - 1]!.push({ turn: i + 1, value })
    chars += value.content.length
  })
  return parts.filter((part) => part.length > 0)
}

/**
 * Facts out of a session, with structured calls to the configured LLM (one per part of a long
 * session); every call's usage is returned so the caller can report it.
 */
export const extractFacts = (llm: ActiveLlm, session: SessionInput) =>
  Effect.map(
    Effect.forEach(chunks(session.turns), (part) =>
      llm.generate({
        operation: "ingest",
        phase: "extract",
        system: EXTRACTION_PROMPT,
        input: {
          session_id: session.sessionId,
          session_time: session.sessionTime,
          turns: part.map(({ turn, value }) => ({ turn, role: value.role, text: value.content }))
        } satisfies ExtractionInput,
        schemaName: "memory_extraction",
        schema: Extraction,
        maxTokens: 4096,
        temperature: 0
      }), { concurrency: 2 }),
    (replies) => ({
      facts: replies.flatMap((reply) => reply.value.facts.flatMap((fact) => clean(fact, session.turns.length) ?? [])),
      calls: replies.flatMap((reply) => reply.calls)
    })
  ).pipe(span("Extractor.extract", { attributes: { turns: session.turns.length } }))
