/**
 * The benchmarks' text, from LoCoMo (../shared/bench/locomo-dev.json): its turns as statements, its
 * questions as queries, and the facts seeded straight into a store, the same on every backend.
 */
import { Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { seededRandom } from "../reliability/random.js"
import { stubEmbedding } from "../stubs/embedding.js"
import { postJson } from "./support.js"

const Samples = Schema.parseJson(Schema.Array(Schema.Struct({
  conversation: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  qa: Schema.Array(Schema.Struct({ question: Schema.String }))
})))
const Turns = Schema.Array(Schema.Struct({ speaker: Schema.String, text: Schema.String }))

const locomo = Schema.decodeUnknownSync(Samples)(NodeFs.readFileSync(NodePath.resolve(import.meta.dirname, "../../../shared/bench/locomo-dev.json"), "utf8"))

/** Every turn of the conversations, as `speaker: text`, in order. */
export const sentences = locomo.flatMap((sample) =>
  Object.entries(sample.conversation).filter(([key]) => /^session_\d+$/.test(key))
    .flatMap(([, turns]) => Schema.decodeUnknownSync(Turns)(turns).map((turn) => `${turn.speaker}: ${turn.text}`)))

/** `count` turns of LoCoMo from `offset` on, as messages of a user and an assistant in turn. */
export const conversation = (offset: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: sentences[(offset + i) % sentences.length]! }))

/** Gives the user the first `turns` turns of LoCoMo through the service, in sessions of 50 (`seed-<offset>`). */
export const seedConversation = async (port: number, userId: string, turns: number) => {
  for (let from = 0; from < turns; from += 50) {
    await postJson(port, "/v1/memories", {
      user_id: userId, session_id: `seed-${from}`, infer: false, async_mode: false, messages: conversation(from, Math.min(50, turns - from))
    })
  }
}

/** Every question, in order: varied natural-language queries. */
export const questions = locomo.flatMap((sample) => sample.qa.map((qa) => qa.question))

/** The i-th seeded fact: a statement, numbered so that no two are equal, dated on a day of 2023. */
export const seededFact = (i: number) => {
  const day = `2023-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`
  return { factId: `fact_${i}`, content: `${sentences[i % sentences.length]} (${i})`, day }
}

/**
 * The stub's embedding of the text with a little noise in every dimension: close to the vector
 * the stub gives a query with the same words, and dense as a real model's is. The stub's own
 * vectors are mostly zeros, which PostgreSQL compresses, and would flatter its vector scan.
 */
export const seededVector = (text: string, i: number, dimensions: number) => {
  const random = seededRandom(i + 1)
  const noisy = stubEmbedding(text, dimensions).map((value) => value + (random() - 0.5) * 0.05)
  const norm = Math.hypot(...noisy) || 1
  return Float32Array.from(noisy, (value) => value / norm)
}
