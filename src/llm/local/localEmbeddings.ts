import { Duration, Effect } from "effect"
import { ProviderTimeout, ProviderUnavailable } from "../../api/errors.js"
import type { EmbedTransport } from "../types.js"
import { type EmbedPool, type Priority } from "./workerPool.js"
import { span } from "../../util/span.js"

export interface LocalEmbedSettings {
  /** The name shown as the model: SERVICE_EMBED_MODEL as given. */
  readonly model: string
  /** Texts per inference call. */
  readonly batchSize: number
  /** Texts waiting for a thread, beyond which a request is refused at once. */
  readonly queueMax: number
  /** How long one request may wait and run, queue included. */
  readonly timeoutMs: number
}

/** Indexes of texts, shortest first, cut into batches: texts of like length pad little. */
const batchesByLength = (texts: ReadonlyArray<string>, size: number): ReadonlyArray<ReadonlyArray<number>> => {
  const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length)
  const batches: Array<Array<number>> = []
  for (let start = 0; start < order.length; start += size) batches.push(order.slice(start, start + size))
  return batches
}

/** The local provider's transport: batches over the pool's threads, within the queue's bound and the request's deadline. */
export const localEmbeddings = (pool: EmbedPool, settings: LocalEmbedSettings): EmbedTransport => {
  const origin = { provider: "local", model: settings.model } as const
  const embed = (texts: ReadonlyArray<string>) =>
    Effect.gen(function*() {
      if (texts.length === 0) return []
      const queued = pool.queuedTexts()
      if (queued + texts.length > settings.queueMax) {
        return yield* new ProviderUnavailable({
          message: `the local embedder's queue is full (${queued} texts waiting, SERVICE_EMBED_QUEUE_MAX=${settings.queueMax})`,
          details: { ...origin, queued }
        })
      }
      // One text is a search's query or a single write: it goes before batches of bulk work.
      const priority: Priority = texts.length === 1 ? "query" : "bulk"
      const batches = batchesByLength(texts, settings.batchSize)
      const results = yield* Effect.forEach(batches, (batch) => pool.run(batch.map((index) => texts[index]!), priority), { concurrency: "unbounded" }).pipe(
        Effect.mapError((message) => new ProviderUnavailable({ message: `the local embedder failed: ${message}`, details: origin }))
      )
      const vectors = new Array<Float32Array>(texts.length)
      batches.forEach((batch, b) => batch.forEach((index, i) => (vectors[index] = results[b]![i]!)))
      return vectors
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(settings.timeoutMs),
        onTimeout: () =>
          new ProviderTimeout({ message: `the local embedder did not answer within ${settings.timeoutMs} ms (SERVICE_EMBED_TIMEOUT_MS)`, details: origin })
      }),
      span("LlmProvider.embed", { attributes: { ...origin, inputs: texts.length } })
    )
  return { ...origin, embed }
}
