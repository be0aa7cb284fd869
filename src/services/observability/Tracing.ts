import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Effect, Layer, Option } from "effect"
import { SERVICE_VERSION } from "../../version.js"

/** OpenTelemetry traces over OTLP/HTTP, only when OTEL_EXPORTER_OTLP_ENDPOINT is set. */
export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const endpoint = yield* Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")).pipe(Effect.orDie)
    if (Option.isNone(endpoint) || endpoint.value.trim() === "") return Layer.empty
    const url = `${endpoint.value.replace(/\/+$/, "")}/v1/traces`
    return NodeSdk.layer(() => ({
      resource: { serviceName: "memory-service", serviceVersion: SERVICE_VERSION },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url }))
    }))
  })
)
