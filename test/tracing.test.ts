import { HttpClient, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, FiberRef, Layer, Option, Scope, Tracer } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { untracedUnless } from "../src/http/untraced.js"
import { TracingLive } from "../src/services/observability/Tracing.js"
import { span } from "../src/util/span.js"
import { authHeaders, rawFetch, startServer } from "./support/server.js"

/** A loopback OTLP/HTTP collector that keeps every trace export it receives. */
const startCollector = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly exports: Array<string> }>((resume) => {
    const exports: Array<string> = []
    const server = NodeHttp.createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => (body += chunk.toString()))
      request.on("end", () => {
        if (request.url === "/v1/traces") exports.push(body)
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, exports, server })))
  }),
  (collector) => Effect.sync(() => (collector as unknown as { server: NodeHttp.Server }).server.close())
)

const spanNames = (exports: ReadonlyArray<string>) =>
  exports.flatMap((body) => [...body.matchAll(/"name":"([^"]+)"/g)].map((match) => match[1]))

describe("tracing", () => {
  it.scoped("exports request spans over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set", () =>
    Effect.gen(function*() {
      const collector = yield* startCollector
      const serverScope = yield* Scope.make()
      const { baseUrl } = yield* Scope.extend(startServer({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url }), serverScope)
      yield* rawFetch(`${baseUrl}/v1/admin/config`, { headers: authHeaders() })
      // Closing the server flushes the batch processor.
      yield* Scope.close(serverScope, Exit.void)
      const names = spanNames(collector.exports)
      expect(names.some((name) => name?.startsWith("http.server"))).toBe(true)
      expect(names).toContain("AdminViews.configView")
      expect(collector.exports.join("")).toContain("memory-service")
    }))

  it.effect("installs no tracer when it is unset, and one when it is set", () =>
    Effect.gen(function*() {
      const native = yield* Effect.tracer
      const tracerWith = (env: Record<string, string>) =>
        Effect.tracer.pipe(Effect.provide(TracingLive), Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
      expect(yield* tracerWith({})).toBe(native)
      expect(yield* tracerWith({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:1" })).not.toBe(native)
    }))

  it.effect("makes no span per request when no traces are exported: spans below are no-ops, with no server span above", () =>
    Effect.gen(function*() {
      // What a handler's own span is, and the span it sits under.
      const app = Effect.map(Effect.withSpan(Effect.currentSpan, "handler"), (span) =>
        HttpServerResponse.unsafeJson({
          noop: span.spanId === "noop",
          parent: Option.match(span.parent, { onNone: () => null, onSome: (parent) => parent._tag === "Span" ? parent.name : "external" })
        }))
      const seen = (exported: boolean) =>
        Effect.flatMap(HttpClient.get("/v1/search"), (response) => response.json).pipe(
          Effect.provide(HttpServer.serve(app).pipe(untracedUnless(exported), Layer.provideMerge(NodeHttpServer.layerTest))),
          Effect.scoped
        )
      expect(yield* seen(false)).toEqual({ noop: true, parent: null })
      expect(yield* seen(true)).toEqual({ noop: false, parent: "http.server GET" })
    }))

  it.effect("the service's own spans are not made at all while tracing is off: the effect runs under no span of theirs", () =>
    Effect.gen(function*() {
      const parentName = Effect.map(Effect.serviceOption(Tracer.ParentSpan), Option.map((parent) => parent._tag === "Span" ? parent.name : "external"))
      const spanned = span("Memory.step")(parentName)
      expect(yield* spanned).toEqual(Option.some("Memory.step"))
      expect(yield* Effect.locally(spanned, FiberRef.currentTracerEnabled, false)).toEqual(Option.none())
    }))
})
