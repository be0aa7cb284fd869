import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { SERVICE_VERSION } from "../../version.js"

/** The OpenTelemetry SDK exporting spans over OTLP/HTTP to `url`, batched. */
export const otlpTracing = (url: string) =>
  NodeSdk.layer(() => ({
    resource: { serviceName: "memory-service", serviceVersion: SERVICE_VERSION },
    spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url }))
  }))
