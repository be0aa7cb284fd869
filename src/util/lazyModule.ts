import { Effect, Schema } from "effect"

/**
 * A module loaded on first use could not be: the installation lacks a file the build made, or the
 * module threw while it ran. Nothing a caller can retry; the process reports it as a fault.
 */
export class ModuleLoadFailed extends Schema.TaggedError<ModuleLoadFailed>()("ModuleLoadFailed", {
  module: Schema.String,
  message: Schema.String
}) {}

/**
 * A module imported only when first asked for, then kept: what a configuration never uses (the
 * PostgreSQL driver on SQLite, the tracing SDK without an endpoint, a provider's SDK, the
 * tokenizer) costs a process neither its loading time nor its memory.
 */
export const lazyModule = <M>(module: string, load: () => Promise<M>): Effect.Effect<M, ModuleLoadFailed> => {
  let loading: Promise<M> | undefined
  return Effect.tryPromise({
    try: () => (loading ??= load()),
    catch: (cause) => new ModuleLoadFailed({ module, message: cause instanceof Error ? cause.message : String(cause) })
  })
}
