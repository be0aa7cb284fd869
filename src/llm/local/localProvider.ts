import { Effect, Either, Option } from "effect"
import type { Settings } from "../../config/AppConfig.js"
import { lazyModule } from "../../util/lazyModule.js"
import type { EmbedTransport } from "../types.js"
import { DEFAULT_LOCAL_MODEL, missingFiles, modelDirectory, pulledModels, remedy } from "./modelFiles.js"
import type { EmbedPool } from "./workerPool.js"

// The pool and its transport load with a model to run: other configurations never carry them.
const workerPool = lazyModule("local embedding pool", () => import("./workerPool.js"))
const transports = lazyModule("local embeddings", () => import("./localEmbeddings.js"))

/** How the local model stands: loaded, its files absent, or present and not loadable. */
export type LocalModelState = "ready" | "model_missing" | "model_unloadable"

export interface LocalEmbedder {
  /** SERVICE_EMBED_MODEL as given, or the model the embedded default picked. */
  readonly model: string
  readonly state: LocalModelState
  readonly transport: Either.Either<EmbedTransport, string>
  /** What an operator runs or does to bring the model. */
  readonly remedy: Option.Option<string>
  /** The pool's activity, while the model is loaded. */
  readonly pool: Option.Option<EmbedPool>
}

/**
 * The local provider on `model` (a directory or a hub id pulled under the data root). Files are
 * only read from disk: nothing is downloaded here. Missing or unloadable files leave the service
 * running without an embedder, saying why and what to do.
 */
export const startLocalEmbedder = (config: Settings, model: string) =>
  Effect.gen(function*() {
    const directory = modelDirectory(config.dataRoot, model)
    const missing = missingFiles(directory)
    if (missing.length > 0) {
      return {
        model,
        state: "model_missing",
        transport: Either.left(`the local embedding model ${model} is missing (${missing.join(", ")} not in ${directory}): ${remedy(model)}`),
        remedy: Option.some(remedy(model)),
        pool: Option.none()
      } satisfies LocalEmbedder
    }
    const limits = config.embed.local
    const started = yield* Effect.either(workerPool.pipe(
      Effect.mapError((failure) => failure.message),
      Effect.flatMap(({ startPool }) => startPool({ directory }, limits.threads))
    ))
    if (Either.isLeft(started)) {
      return {
        model,
        state: "model_unloadable",
        transport: Either.left(`the local embedding model in ${directory} could not be loaded: ${started.left}`),
        remedy: Option.some(remedy(model)),
        pool: Option.none()
      } satisfies LocalEmbedder
    }
    const pool = started.right
    const wanted = config.embed.dimensions
    if (Option.isSome(wanted) && wanted.value !== pool.dimensions) {
      return {
        model,
        state: "model_unloadable",
        transport: Either.left(`the local embedding model ${model} gives ${pool.dimensions} dimensions, SERVICE_EMBED_DIMENSIONS asks ${wanted.value}`),
        remedy: Option.none(),
        pool: Option.none()
      } satisfies LocalEmbedder
    }
    const { localEmbeddings } = yield* Effect.orDie(transports)
    yield* Effect.logInfo(`local embedding model ${model}: ${pool.dimensions} dimensions, ${pool.maxTokens} tokens, ${limits.threads} threads`)
    return {
      model,
      state: "ready",
      transport: Either.right(localEmbeddings(pool, { model, batchSize: limits.batchSize, queueMax: limits.queueMax, timeoutMs: limits.timeoutMs })),
      remedy: Option.none(),
      pool: Option.some(pool)
    } satisfies LocalEmbedder
  })

/**
 * The model the embedded default runs when no provider is configured: SERVICE_EMBED_MODEL when
 * its files are present, else the default model or the first one pulled under the data root.
 */
export const embeddedDefaultModel = (config: Settings): Option.Option<string> =>
  Option.match(config.embed.model, {
    onSome: (model) => missingFiles(modelDirectory(config.dataRoot, model)).length === 0 ? Option.some(model) : Option.none(),
    onNone: () => {
      const pulled = pulledModels(config.dataRoot)
      return pulled.includes(DEFAULT_LOCAL_MODEL) ? Option.some(DEFAULT_LOCAL_MODEL) : Option.fromNullable(pulled[0])
    }
  })
