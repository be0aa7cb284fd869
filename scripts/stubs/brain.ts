/**
 * The "brain" of the loopback LLM stubs: a deterministic stand-in for the model that answers the
 * service's structured tasks (src/llm/tasks.ts) with a few plain rules, so that tests, benchmarks
 * and keyless demos get plausible, repeatable replies without a provider.
 *
 * It has no runtime dependencies (the import below is type-only, erased at build) and never
 * throws: input it cannot make sense of gets an empty but well-formed reply.
 */
import type { ExtractedFact, Plan, Profile, Reading, Reconciliation } from "../../src/llm/tasks.js"

type Entity = ExtractedFact["entities"][number]

// ---- reading untrusted JSON without trusting it ----

type Json = Record<string, unknown>

const asRecord = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : {}
const asArray = (value: unknown): ReadonlyArray<unknown> => Array.isArray(value) ? value : []
const asString = (value: unknown): string => typeof value === "string" ? value : ""
const asInt = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isInteger(value) ? value : fallback

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

// ---- word lists ----

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
// Capitalised only, so that the verb "may" is not read as the month.
const MONTH = "(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec)"
const CALENDAR_WORDS = new Set([
  "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December",
  "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec",
  "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"
])

// Words that may sit between the subject and its verb ("I really like", "the user does not eat").
const ADVERBS = "no longer|not|never|also|really|just|still|usually|always|often|sometimes|recently|actually|finally|currently|now|only|mostly|rarely|definitely|probably|even|already|generally|normally|typically|mainly|honestly|totally|absolutely"
const AUXILIARIES = "would|will|can|could|should|shall|might|may|must|does|did|doesn['’]t|didn['’]t|won['’]t|can['’]t|wouldn['’]t|cannot"
const PREPOSITIONS = "in|at|to|from|for|with|on|of|near|about|into|by|as"

// The user's own words: "I <adverbs> <verb>" and the assistant's "You <adverbs> <verb>", so the verb can be conjugated.
const SUBJECT_I = new RegExp(`\\bI((?:\\s+(?:${ADVERBS}))*)\\s+([A-Za-z'’]+)`, "g")
const SUBJECT_YOU = new RegExp(`^You((?:\\s+(?:${ADVERBS}))*)\\s+([A-Za-z'’]+)`)
// The verb of a rewritten statement, past any adverb or auxiliary, and a preposition right after it.
const USER_VERB = new RegExp(
  `\\bthe user((?:\\s+(?:${ADVERBS}|${AUXILIARIES}))*)\\s+([A-Za-z'’]+)(?:\\s+(${PREPOSITIONS})\\b)?`,
  "i"
)

// A Map, not an object literal, so that a word like "constructor" finds nothing inherited.
const THIRD_PERSON = new Map([
  ["am", "is"],
  ["are", "is"],
  ["were", "was"],
  ["have", "has"],
  ["do", "does"],
  ["don't", "doesn't"],
  ["haven't", "hasn't"],
  ["aren't", "isn't"],
  ["weren't", "wasn't"]
])
// The odd word after "I" that is no verb ("I and my wife"): neither conjugated nor a predicate.
const NOT_VERBS = new Set(["and", "or", "but", "too", "myself", "alone"])
// Words after "I" that do not take an -s: modals and past forms.
const UNCONJUGATED = new Set(["can", "could", "will", "would", "shall", "should", "may", "might", "must", "cannot", "was", "did", "had"])
const IRREGULAR_PAST = new Set([
  "went", "bought", "got", "saw", "met", "ran", "took", "made", "had", "was", "were", "did", "left", "began",
  "came", "found", "gave", "knew", "sold", "spent", "taught", "thought", "wrote", "won", "lost", "built",
  "caught", "felt", "flew", "heard", "kept", "paid", "said", "sent", "sat", "stood", "told", "ate", "drove",
  "fell", "forgot", "grew", "rode", "sang", "swam", "threw", "woke", "wore", "became", "broke", "brought",
  "chose", "drank", "held", "led", "meant", "slept", "spoke", "understood"
])
const STATE_VERBS = new Set(["lives", "works", "is", "has", "owns"])
const LOCATION_PREPOSITIONS = new Set(["in", "at", "to", "from", "near"])

const PREFERENCE = /\b(?:like[sd]?|liking|love[sd]?|loving|prefer(?:s|red|ring)?|enjoy(?:s|ed|ing)?|hate[sd]?|hating|favou?rites?)\b/i
const HEDGE = /\b(?:maybe|might|probably|think|thinks)\b/i
const PAST_MARKER = /\b(?:yesterday|last|ago)\b/i

// Openers of small talk; a sentence starting with one only counts when the rest speaks of the user.
const PLEASANTRY = /^(?:hi|hello|hey|thanks|thank you|okay|ok|alright|sounds good|sounds great|got it|good morning|good afternoon|good evening|good night|bye|goodbye|no problem|you['’]re welcome|great|cool|nice|perfect|awesome|sure|yes|yeah|yep|no|nope|well|oh|anyway)\b[\s,!.]*/i

const STOP_WORDS = new Set([
  "a", "an", "the", "and", "or", "but", "of", "in", "on", "at", "to", "for", "from", "with", "by", "about", "as", "into",
  "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "have", "has", "had",
  "what", "when", "where", "who", "whom", "whose", "which", "why", "how", "that", "this", "these", "those",
  "it", "its", "i", "me", "my", "mine", "you", "your", "yours", "we", "our", "us", "he", "him", "his", "she", "her",
  "they", "them", "their", "user", "users", "can", "could", "would", "should", "will", "shall", "may", "might", "must",
  "any", "some", "there", "then", "than", "so", "if", "not", "no", "yes", "ever", "much", "many", "tell", "know", "please"
])

// ---- extraction ----

const sentencesOf = (text: string): Array<string> =>
  text.split(/(?<=[.!?])\s+|\n+/).map((sentence) => sentence.trim()).filter((sentence) => sentence !== "")

const wordCount = (text: string): number => text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length

const thirdPerson = (verb: string): string => {
  const lower = verb.toLowerCase().replace(/’/g, "'")
  const irregular = THIRD_PERSON.get(lower)
  if (irregular !== undefined) return irregular
  if (UNCONJUGATED.has(lower) || NOT_VERBS.has(lower) || IRREGULAR_PAST.has(lower) || lower.endsWith("ed") || lower.includes("'")) return verb
  if (/(?:s|sh|ch|x|z|o)$/.test(lower)) return `${verb}es`
  if (/[^aeiou]y$/.test(lower)) return `${verb.slice(0, -1)}ies`
  return `${verb}s`
}

const conjugate = (_match: string, adverbs: string, verb: string): string => `the user${adverbs} ${thirdPerson(verb)}`

const firstToThirdPerson = (sentence: string): string =>
  sentence
    .replace(/\bI['’]m\b|\bI am\b/g, "the user is")
    .replace(/\bI['’]ve\b/g, "the user has")
    .replace(/\bI['’]d\b/g, "the user would")
    .replace(/\bI['’]ll\b/g, "the user will")
    .replace(SUBJECT_I, conjugate)
    .replace(/\bI\b/g, "the user")
    .replace(/\bmy\b|\bmine\b/gi, "the user's")
    .replace(/\bme\b|\bmyself\b/gi, "the user")

const secondToThirdPerson = (sentence: string): string =>
  sentence
    .replace(/^You(?:['’]re| are)\b/, "the user is")
    .replace(/^You['’]ve\b/, "the user has")
    .replace(/^You['’]d\b/, "the user would")
    .replace(/^You['’]ll\b/, "the user will")
    .replace(SUBJECT_YOU, conjugate)
    .replace(/\byou['’]re\b/gi, "the user is")
    .replace(/\byourself\b/gi, "the user")
    .replace(/\byours?\b/gi, "the user's")
    .replace(/\byou\b/gi, "the user")

// One sentence, capitalised, ending with a single period.
const finish = (text: string): string => {
  const trimmed = text.trim().replace(/[\s.!;:,…]+$/, "")
  return `${trimmed.charAt(0).toUpperCase()}${trimmed.slice(1)}.`
}

const isQuestion = (sentence: string): boolean => sentence.trimEnd().endsWith("?")

const fromUserTurn = (sentence: string): string | null => {
  if (isQuestion(sentence)) return null
  let body = sentence
  const opener = PLEASANTRY.exec(body)
  if (opener !== null) {
    body = body.slice(opener[0].length)
    // "Thanks for the help" is small talk; "Thanks, I moved to Berlin" still says something.
    if (!/\bI\b|\bmy\b/i.test(body)) return null
  }
  if (wordCount(body) < 3) return null
  return finish(firstToThirdPerson(body))
}

// The assistant is only trusted when it restates the user ("You have two cats").
const fromAssistantTurn = (sentence: string): string | null => {
  if (!/^You(?:\s|['’](?:re|ve|d|ll)\b)/.test(sentence) || isQuestion(sentence) || wordCount(sentence) < 3) return null
  return finish(secondToThirdPerson(sentence))
}

// ---- dates, resolved against the session's local date ----

interface Day {
  readonly year: number
  readonly month: number
  readonly day: number
}

const pad = (value: number, width: number): string => String(value).padStart(width, "0")
const formatDay = (day: Day): string => `${pad(day.year, 4)}-${pad(day.month, 2)}-${pad(day.day, 2)}`
const formatMonth = (year: number, month: number): string => `${pad(year, 4)}-${pad(month, 2)}`
const monthNumber = (name: string): number => MONTHS.indexOf(name.slice(0, 3).toLowerCase()) + 1

// UTC arithmetic, so that the host's time zone never shifts a date.
const makeDay = (year: number, month: number, day: number): Day | null => {
  const date = new Date(Date.UTC(year, month - 1, day))
  const made = { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
  return made.year === year && made.month === month && made.day === day ? made : null
}

const daysBefore = (day: Day, days: number): Day => {
  const date = new Date(Date.UTC(day.year, day.month - 1, day.day - days))
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
}

const sessionDay = (sessionTime: string): Day | null => {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(sessionTime)
  return match === null ? null : makeDay(Number(match[1]), Number(match[2]), Number(match[3]))
}

const FULL_DATE_MONTH_FIRST = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`)
const FULL_DATE_DAY_FIRST = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH},?\\s+(\\d{4})\\b`)
const MONTH_YEAR = new RegExp(`\\b${MONTH}\\s+(\\d{4})\\b`)
const MONTH_DAY = new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b`)
const DAY_MONTH = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\b`)

/** When the sentence says it happened: explicit dates first, then words relative to the session; "" when unknown. */
const resolveOccurred = (text: string, sessionTime: string): string => {
  const session = sessionDay(sessionTime)
  const dayOf = (year: number, month: number, day: number): string => {
    const made = makeDay(year, month, day)
    return made === null ? "" : formatDay(made)
  }

  const iso = /\b(\d{4})-(\d{2})-(\d{2})\b/.exec(text)
  if (iso !== null && makeDay(Number(iso[1]), Number(iso[2]), Number(iso[3])) !== null) return iso[0]
  let match = FULL_DATE_MONTH_FIRST.exec(text)
  if (match !== null) return dayOf(Number(match[3]), monthNumber(match[1] ?? ""), Number(match[2]))
  match = FULL_DATE_DAY_FIRST.exec(text)
  if (match !== null) return dayOf(Number(match[3]), monthNumber(match[2] ?? ""), Number(match[1]))
  match = MONTH_YEAR.exec(text)
  if (match !== null) return formatMonth(Number(match[2]), monthNumber(match[1] ?? ""))
  if (session !== null) {
    match = MONTH_DAY.exec(text)
    if (match !== null) return dayOf(session.year, monthNumber(match[1] ?? ""), Number(match[2]))
    match = DAY_MONTH.exec(text)
    if (match !== null) return dayOf(session.year, monthNumber(match[2] ?? ""), Number(match[1]))
  }
  const year = /\bin\s+(\d{4})\b/.exec(text)
  if (year !== null) return year[1] ?? ""
  if (session === null) return ""
  if (/\btoday\b/i.test(text)) return formatDay(session)
  if (/\byesterday\b/i.test(text)) return formatDay(daysBefore(session, 1))
  if (/\blast week\b/i.test(text)) return formatDay(daysBefore(session, 7))
  if (/\blast month\b/i.test(text)) {
    return session.month === 1 ? formatMonth(session.year - 1, 12) : formatMonth(session.year, session.month - 1)
  }
  if (/\blast year\b/i.test(text)) return pad(session.year - 1, 4)
  return ""
}

// ---- what a statement is about ----

const isPastForm = (verb: string): boolean => {
  const lower = verb.toLowerCase()
  return lower.endsWith("ed") || IRREGULAR_PAST.has(lower)
}

const entitiesOf = (statement: string): Array<Entity> => {
  const entities: Array<Entity> = []
  const add = (name: string, role: Entity["role"]) => {
    if (name !== "" && !entities.some((entity) => entity.name === name)) entities.push({ name, role })
  }
  if (/\bthe user\b/i.test(statement)) add("user", "subject")

  // Runs of capitalised words past the first word: "New York", "Anna", "St Mary's Hospital".
  const tokens = statement.split(/\s+/)
  let run: Array<string> = []
  let before = ""
  const flush = () => {
    // A possessive closing the run belongs to the sentence, not the name: "Anna's sister" → "Anna".
    const name = run.join(" ").replace(/['’]s$/, "")
    add(name, LOCATION_PREPOSITIONS.has(before) ? "location" : "object")
    run = []
  }
  tokens.forEach((token, position) => {
    const core = token.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
    const capitalised = position > 0 && /^\p{Lu}/u.test(core) && core !== "I" && !CALENDAR_WORDS.has(core.replace(/s$/, ""))
    if (!capitalised) {
      flush()
      return
    }
    if (run.length === 0) before = (tokens[position - 1] ?? "").toLowerCase().replace(/[^\p{L}]/gu, "")
    run.push(core)
    // Punctuation ends the name: "Paris, France" is two.
    if (/[^\p{L}\p{N}]$/u.test(token)) flush()
  })
  flush()
  return entities
}

const toFact = (statement: string, sessionTime: string, turn: number): ExtractedFact => {
  const occurred = resolveOccurred(statement, sessionTime)
  const verbMatch = USER_VERB.exec(statement)
  const found = verbMatch?.[2] ?? ""
  const verb = NOT_VERBS.has(found.toLowerCase()) ? "" : found
  const preposition = verb === "" ? "" : verbMatch?.[3] ?? ""
  const kind: ExtractedFact["kind"] = PREFERENCE.test(statement)
    ? "preference"
    : occurred !== "" || PAST_MARKER.test(statement) || (verb !== "" && isPastForm(verb))
    ? "event"
    : STATE_VERBS.has(verb.toLowerCase())
    ? "state"
    : "fact"
  const predicate = [verb, preposition]
    .filter((word) => word !== "")
    .join("_")
    .toLowerCase()
    .replace(/['’]/g, "")
  return {
    statement,
    kind,
    confidence: HEDGE.test(statement) ? 0.6 : 0.9,
    occurred,
    source_turns: [turn],
    entities: entitiesOf(statement),
    predicate
  }
}

const extract = (input: Json): { readonly facts: ReadonlyArray<ExtractedFact> } => {
  const sessionTime = asString(input.session_time)
  const facts: Array<ExtractedFact> = []
  asArray(input.turns).forEach((raw, position) => {
    const turn = asRecord(raw)
    const role = asString(turn.role)
    const number = asInt(turn.turn, position)
    for (const sentence of sentencesOf(asString(turn.text))) {
      const statement = role === "user" ? fromUserTurn(sentence) : role === "assistant" ? fromAssistantTurn(sentence) : null
      if (statement !== null) facts.push(toFact(statement, sessionTime, number))
    }
  })
  return { facts }
}

// ---- reconciliation ----

const normalize = (statement: string): string =>
  statement.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, "").replace(/\s+/g, " ").trim()

// On normalized text, where "doesn't" has become "doesnt".
const NEGATION = /\b(?:not|never|no longer|doesnt|dont|didnt|isnt|wasnt|cannot|cant|wont|hasnt|havent)\b/
const firstThreeWords = (normalized: string): string | null => {
  const words = normalized.split(" ")
  return words.length >= 3 ? words.slice(0, 3).join(" ") : null
}

const reconcile = (input: Json): Reconciliation => ({
  decisions: asArray(input.facts).map((raw, position) => {
    const fact = asRecord(raw)
    const index = asInt(fact.index, position)
    const statement = normalize(asString(fact.statement))
    const candidates = asArray(fact.candidates).map((candidate) => {
      const record = asRecord(candidate)
      return { id: asString(record.id), statement: normalize(asString(record.statement)) }
    })
    const same = candidates.find((candidate) => statement !== "" && candidate.statement === statement)
    if (same !== undefined) {
      return { index, action: "duplicate", target_id: same.id, reason: `same statement as ${same.id}` }
    }
    const opening = firstThreeWords(statement)
    const related = candidates.find((candidate) => opening !== null && firstThreeWords(candidate.statement) === opening)
    if (related !== undefined) {
      const flipped = NEGATION.test(statement) !== NEGATION.test(related.statement)
      return flipped
        ? { index, action: "contradict", target_id: related.id, reason: `same subject and relation as ${related.id}, opposite polarity` }
        : { index, action: "update", target_id: related.id, reason: `same subject and relation as ${related.id}, new value` }
    }
    return { index, action: "add", target_id: "", reason: "no current fact has the same subject and relation" }
  })
})

// ---- answering ----

const tokensOf = (text: string): Array<string> =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((word) => word.length > 1 || /\d/.test(word))

/** The question's words that carry meaning, lowercase, in order, once each. */
const contentWords = (question: string): Array<string> => [
  ...new Set(tokensOf(question).filter((word) => !STOP_WORDS.has(word)))
]

// A crude stemmer, so that "lives", "lived" and "living" all meet "live": one suffix, then a final "e".
const stem = (word: string): string => {
  let base = word
  for (const suffix of ["ing", "ed", "es", "s"]) {
    if (base.endsWith(suffix) && base.length - suffix.length >= 3 && !(suffix === "s" && base.endsWith("ss"))) {
      base = base.slice(0, -suffix.length)
      break
    }
  }
  return base.endsWith("e") && base.length >= 4 ? base.slice(0, -1) : base
}

const plan = (input: Json): Plan => {
  const question = asString(input.question)
  const searches = asArray(input.searches).length
  const evidence = asArray(input.evidence).length
  if (evidence === 0 && searches < 2) {
    // The second query must differ from the first; a question of stop words only has none to offer.
    const query = searches === 0 ? question : contentWords(question).join(" ")
    if (query.trim() !== "") {
      return {
        action: "search",
        query,
        reason: searches === 0 ? "nothing gathered yet: search for the question as asked" : "the first search found nothing: retry with its key words"
      }
    }
  }
  return {
    action: "answer",
    query: "",
    reason: evidence > 0 ? "the evidence gathered can answer the question" : "searching found nothing and more will not help"
  }
}

const read = (input: Json): Reading => {
  const words = contentWords(asString(input.question))
  const wanted = [...new Set(words.map(stem))]
  const lines = asArray(input.evidence).map((raw, position) => {
    const line = asRecord(raw)
    const text = asString(line.text)
    const present = new Set(tokensOf(text).map(stem))
    return { id: asString(line.id), text, position, score: wanted.filter((word) => present.has(word)).length }
  })
  const bestScore = Math.max(0, ...lines.map((line) => line.score))
  const best = lines.find((line) => line.score === bestScore)
  if (bestScore === 0 || best === undefined) {
    return {
      answer: "I don't know.",
      citations: [],
      insufficient: true,
      missing_information: `nothing in memory mentions ${words.length > 0 ? words.join(", ") : "what the question asks"}`
    }
  }
  // Lines half as relevant as the best still support it; a stable sort keeps the earliest first on ties.
  const citations = lines
    .filter((line) => line.score * 2 >= bestScore)
    .sort((a, b) => b.score - a.score || a.position - b.position)
    .slice(0, 3)
    .map((line) => line.id)
  return { answer: best.text, citations, insufficient: false, missing_information: "" }
}

// ---- maintenance ----

const profile = (input: Json): Profile => {
  const entity = asString(input.entity)
  // The newest facts come last, so the last five are the ones worth summarising.
  const facts = asArray(input.facts).map(asRecord).slice(-5)
  if (facts.length === 0) return { summary: `${entity}: no current facts.`, citations: [] }
  return {
    summary: `${entity}: ${facts.map((fact) => asString(fact.text)).join("; ")}`,
    citations: facts.map((fact) => asString(fact.id))
  }
}

// ---- dispatch ----

const TASKS: ReadonlyArray<readonly [property: string, answer: (input: Json) => unknown]> = [
  ["facts", extract],
  ["decisions", reconcile],
  ["action", plan],
  ["answer", read],
  ["summary", profile]
]

/** Plays the model: the reply (a JSON value) to one structured task, chosen by the reply schema's properties. */
export const respond = (request: { readonly system: string; readonly user: string; readonly schema: Record<string, unknown> }): unknown => {
  const properties = asRecord(asRecord(asRecord(request).schema).properties)
  const task = TASKS.find(([property]) => Object.hasOwn(properties, property))
  if (task === undefined) return {}
  const input = asRecord(parseJson(asString(asRecord(request).user)))
  try {
    return task[1](input)
  } catch {
    // Not expected (the handlers read input defensively), but a stub that throws takes its server down.
    return {}
  }
}
