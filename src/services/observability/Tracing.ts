import { Config, Effect, Layer, Option } from "effect"
import { moduleUnavailable } from "../../startup/StartupError.js"
import { lazyModule } from "../../util/lazyModule.js"

/** The SDK and its exporter, loaded only when an endpoint is configured. */
const tracingSdk = lazyModule("OpenTelemetry SDK", () => import("./tracingSdk.js"))

/** OpenTelemetry traces over OTLP/HTTP, only when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const endpoint = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orDie)
    if (Option.isNone(endpoint) || endpoint.value.trim() === "") return Layer.empty
    const { otlpTracing } = yield* tracingSdk.pipe(Effect.mapError(moduleUnavailable))
    return otlpTracing(`${endpoint.value.replace(/\/+$/, "")}/v1/traces`)
  })
)
