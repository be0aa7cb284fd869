/**
 * The floor of the service's stack on this machine: an HttpApi server on the same platform as the
 * service (Effect, @effect/platform-node) that answers each add request by decoding it with the
 * service's own request schema, then making a fixed list of provider calls through the `openai`
 * package over the service's kept-alive `node:http` fetch, one after another, decoding each chat
 * reply with its task's schema and each embedding to vectors. No authentication, request log,
 * metrics, retry or timeout policy, usage, store or domain logic: what is left is what any
 * service built on this stack pays to make the same calls.
 *
 * Run by `bench:llm` as a process of its own: `tsx scripts/bench/stack-relay.ts <config.json>`,
 * with the same config as relay.ts. Logs the same "Listening on" line as the service, and answers
 * with `x-response-time-ms` as the service does.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApp, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpClient, NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"
import OpenAI from "openai"
import { AddMemoriesRequest } from "../../src/api/MemoriesApi.js"
import { nodeFetch } from "../../src/llm/providers/nodeFetch.js"
import { embeddingVector } from "../../src/llm/providers/openai.js"
import { Extraction, Reconciliation } from "../../src/llm/tasks.js"
import type { RelayConfig } from "./relay.js"

const config = JSON.parse(NodeFs.readFileSync(process.argv[2]!, "utf8")) as RelayConfig

const TASKS: Record<string, (text: string) => Effect.Effect<unknown, unknown>> = {
  memory_extraction: Schema.decodeUnknown(Schema.parseJson(Extraction)),
  memory_reconciliation: Schema.decodeUnknown(Schema.parseJson(Reconciliation))
}

// The requests are the service's own, as the stub recorded them.
type ChatBody = OpenAI.ChatCompletionCreateParamsNonStreaming & { readonly response_format: OpenAI.ResponseFormatJSONSchema }

const chat = (openai: OpenAI, body: ChatBody) =>
  Effect.gen(function*() {
    const reply = yield* Effect.tryPromise((signal) => openai.chat.completions.create(body, { signal }))
    const name = body.response_format.json_schema.name
    const decode = TASKS[name]
    if (decode === undefined) return yield* Effect.dieMessage(`no schema for task ${name}`)
    return yield* decode(reply.choices[0]?.message.content ?? "")
  })

const embed = (openai: OpenAI, body: OpenAI.EmbeddingCreateParams) =>
  Effect.map(
    Effect.tryPromise((signal) => openai.embeddings.create(body, { signal })),
    (reply) => reply.data.map((item) => embeddingVector(item.embedding))
  )

const Api = HttpApi.make("stack-relay").add(
  HttpApiGroup.make("memories").add(
    HttpApiEndpoint.post("add", "/v1/memories").setPayload(AddMemoriesRequest).addSuccess(Schema.Struct({ facts_extracted: Schema.Number }))
  )
)

const MemoriesLive = HttpApiBuilder.group(Api, "memories", (handlers) =>
  Effect.gen(function*() {
    const agent = yield* NodeHttpClient.makeAgent({ keepAlive: true })
    const openai = new OpenAI({ apiKey: "relay", baseURL: config.stubUrl, maxRetries: 0, fetch: nodeFetch(agent) })
    const calls = config.requests.map(({ body, path }) =>
      path.endsWith("/embeddings") ? embed(openai, body as OpenAI.EmbeddingCreateParams) : chat(openai, body as ChatBody))
    return handlers.handle("add", () => Effect.as(Effect.orDie(Effect.all(calls, { discard: true })), { facts_extracted: 0 }))
  }))

/** The response time, measured as the service measures its own. */
const responseTime = (app: HttpApp.Default): HttpApp.Default =>
  Effect.gen(function*() {
    const started = performance.now()
    yield* HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "x-response-time-ms", (performance.now() - started).toFixed(1))))
    return yield* app
  })

HttpApiBuilder.serve(responseTime).pipe(
  Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(MemoriesLive))),
  HttpServer.withLogAddress,
  Layer.provide(NodeHttpServer.layer(NodeHttp.createServer, { port: 0, host: "127.0.0.1" })),
  Layer.launch,
  NodeRuntime.runMain
)
