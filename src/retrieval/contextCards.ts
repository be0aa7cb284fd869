import type { EvidenceItem } from "./evidence.js"
import type { TokenCounter } from "./tokenizer.js"
import { StatementSet } from "../domain/text.js"

/** A card as rendered into the context block: keys in this order, empty ones left out. */
export type Card = Record<string, unknown>

const oneLine = (text: string, limit: number) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`
}

const entitiesOf = (roles: unknown) => {
  if (typeof roles !== "object" || roles === null) return ""
  const pairs = Object.entries(roles as Record<string, ReadonlyArray<string>>)
    .filter(([role]) => role !== "subject")
    .flatMap(([role, names]) => names.map((name) => `${role}=${name}`))
  return oneLine(pairs.join("|"), 180)
}

const text = (value: unknown) => (typeof value === "string" ? value : "")

/** Sets a card's value if it has one to show: an empty one is left out. */
const putShown = (card: Card, key: string, value: string | null | undefined) => {
  if (value !== null && value !== undefined && value !== "") card[key] = value
}

export const toCard = (item: EvidenceItem): Card => {
  const support = oneLine(item.support_text, 220)
  const predicate = oneLine(text(item.predicate_raw), 140)
  // Built key by key, in the cards' order: filtering a whole card by its entries took ~1 µs more.
  const card: Card = {}
  putShown(card, "evidence_id", item.evidence_id)
  putShown(card, "support", support)
  // A fact stored as it was said repeats its support: once is enough.
  putShown(card, "predicate", predicate === support ? "" : predicate)
  putShown(card, "entities", entitiesOf(item.entity_roles))
  putShown(card, "date", [item.occurred_start, text(item.valid_from), item.session_time].find((date) => typeof date === "string" && date !== ""))
  putShown(card, "source", item.source_session_id !== null && item.source_turn_id !== null ? `${item.source_session_id}/${item.source_turn_id}` : "")
  putShown(card, "role", item.source_role === "user" ? "" : item.source_role)
  putShown(card, "status", item.status === "active" ? "" : item.status)
  putShown(card, "version_status", item.version_status === "current" ? "" : item.version_status)
  card.expanded = false
  return card
}

/**
 * A line break inside a value (a session id may hold one, and ids are shown as stored) is
 * written as an escape, so every card stays on its own line.
 */
const escapeLineBreaks = (value: string) =>
  value.replace(/[\n\r\v\f\u0085\u2028\u2029]/g, (c) =>
    c === "\n" ? "\\n" : c === "\r" ? "\\r" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** Python-style rendering, as the reference service prints its cards. */
const render = (value: unknown): string => {
  if (typeof value === "boolean") return value ? "True" : "False"
  if (typeof value === "string") return escapeLineBreaks(value)
  if (typeof value === "number") return String(value)
  if (Array.isArray(value)) return `[${value.map(renderInside).join(", ")}]`
  if (typeof value === "object" && value !== null) return `{${Object.entries(value).map(([k, v]) => `'${k}': ${renderInside(v)}`).join(", ")}}`
  return "None"
}

/** A value inside a list or a dict: strings quoted there. */
const renderInside = (value: unknown): string => typeof value === "string" ? `'${escapeLineBreaks(value)}'` : render(value)

export const cardLine = (card: Card) => `- ${Object.entries(card).map(([key, value]) => `${key}=${render(value)}`).join(" ")}`

/**
 * Past this length a line is priced at its UTF-8 bytes, an upper bound (no token is shorter than
 * a byte): the tokenizer is quadratic in one long unbroken word, such as a long session id
 * repeated in a card's evidence id and source, and would hold the event loop for seconds.
 */
const MAX_COUNTED_CHARS = 2_000

const lineTokens = (countTokens: TokenCounter, line: string) =>
  line.length <= MAX_COUNTED_CHARS ? countTokens(line) : Buffer.byteLength(line, "utf8")

/**
 * Renders cards, best first, until the next would exceed the token budget (each line counted
 * with its newline, a very long one priced at its bytes). A card saying what an earlier one
 * said is left out.
 */
export const renderWithinBudget = (items: ReadonlyArray<EvidenceItem>, tokenBudget: number, countTokens: TokenCounter) => {
  const lines: Array<string> = []
  const cards: Array<Card> = []
  const said = new StatementSet()
  let used = 0
  for (const item of items) {
    // Held before the card is known to fit: when it does not, nothing more is rendered.
    if (!said.add(item.support_text)) continue
    const card = toCard(item)
    const line = cardLine(card)
    const cost = lineTokens(countTokens, line) + 1
    if (used + cost > tokenBudget) break
    used += cost
    lines.push(line)
    cards.push(card)
  }
  return { text: lines.join("\n"), cards, tokens: used }
}
