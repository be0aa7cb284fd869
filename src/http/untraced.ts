import { HttpMiddleware } from "@effect/platform"
import { Config, Effect, FiberRef, Layer, Option } from "effect"
import { constTrue } from "effect/Function"

/** Whether traces go anywhere: OTEL_EXPORTER_OTLP_ENDPOINT is set (services/observability/Tracing.ts). */
export const tracesExported = Effect.map(
  Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orDie),
  (endpoint) => Option.exists(endpoint, (url) => url.trim() !== "")
)

/**
 * The server layer with its requests untraced when no traces are exported: no server span with
 * its attributes per request, and every span below a no-op one, instead of spans made, timed and
 * annotated for no one.
 */
export const untracedUnless = (exported: boolean) => <A, E, R>(layer: Layer.Layer<A, E, R>): Layer.Layer<A, E, R> =>
  exported ? layer : layer.pipe(HttpMiddleware.withTracerDisabledWhen(constTrue), Layer.locally(FiberRef.currentTracerEnabled, false))
