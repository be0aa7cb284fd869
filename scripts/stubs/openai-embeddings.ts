/**
 * An OpenAI-compatible endpoint on loopback that answers `POST /v1/embeddings` with deterministic
 * vectors: each word (after a small synonym table, so that "automobile" lands where "car" does)
 * is hashed into the vector, which is then L2-normalized. Any other request is recorded and
 * refused. It lets the service run end to end without a provider key, and lets tests see exactly
 * what the service asked for.
 *
 * Run it: npx tsx scripts/stubs/openai-embeddings.ts [port] [dimensions]
 * then start the service with SERVICE_LLM_API_KEY=stub SERVICE_LLM_BASE_URL=http://127.0.0.1:<port>/v1
 */
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

const SYNONYMS: Record<string, string> = {
  automobile: "car",
  vehicle: "car",
  physician: "doctor",
  puppy: "dog",
  hound: "dog",
  film: "movie",
  cinema: "movie",
  residence: "home",
  house: "home"
}

const fnv1a = (text: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

export const stubEmbedding = (text: string, dimensions: number): Array<number> => {
  const vector = new Array<number>(dimensions).fill(0)
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const word = SYNONYMS[raw] ?? raw
    const hash = fnv1a(word)
    vector[hash % dimensions]! += (hash & 0x80000000) === 0 ? 1 : -1
  }
  const norm = Math.hypot(...vector) || 1
  return vector.map((value) => value / norm)
}

export interface StubRequest {
  readonly method: string
  readonly path: string
  readonly body: Record<string, unknown> | null
}

export interface EmbeddingStub {
  readonly url: string
  readonly requests: Array<StubRequest>
  /** Makes the next embedding requests fail with this status (e.g. 503), or succeed again (null). */
  failWith: number | null
  readonly close: () => Promise<void>
}

export const startEmbeddingStub = (options: { readonly dimensions: number; readonly port?: number }): Promise<EmbeddingStub> =>
  new Promise((resolve) => {
    const requests: Array<StubRequest> = []
    const stub: { failWith: number | null } = { failWith: null }
    const server = NodeHttp.createServer((request, response) => {
      let text = ""
      request.on("data", (chunk: Buffer) => (text += chunk.toString()))
      request.on("end", () => {
        const body = text === "" ? null : JSON.parse(text) as Record<string, unknown>
        const path = (request.url ?? "").split("?")[0]!
        requests.push({ method: request.method ?? "", path, body })
        const reply = (status: number, payload: unknown) =>
          response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload))
        if (request.method !== "POST" || !path.endsWith("/embeddings") || body === null) {
          return reply(404, { error: { message: "this stub only serves POST /v1/embeddings", type: "invalid_request_error" } })
        }
        if (stub.failWith !== null) return reply(stub.failWith, { error: { message: "stub told to fail", type: "server_error" } })
        const inputs = Array.isArray(body.input) ? body.input as Array<string> : [String(body.input)]
        const dimensions = typeof body.dimensions === "number" ? body.dimensions : options.dimensions
        const tokens = inputs.reduce((sum, input) => sum + (input.match(/\S+/g)?.length ?? 0), 0)
        reply(200, {
          object: "list",
          model: body.model,
          data: inputs.map((input, index) => ({ object: "embedding", index, embedding: stubEmbedding(input, dimensions) })),
          usage: { prompt_tokens: tokens, total_tokens: tokens }
        })
      })
    })
    server.listen(options.port ?? 0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve(Object.assign(stub, {
        url: `http://127.0.0.1:${port}/v1`,
        requests,
        close: () => new Promise<void>((done) => server.close(() => done()))
      }))
    })
  })

if (process.argv[1] !== undefined && import.meta.filename === process.argv[1]) {
  const port = Number(process.argv[2] ?? 8100)
  const dimensions = Number(process.argv[3] ?? 512)
  void startEmbeddingStub({ port, dimensions }).then((stub) => console.log(`embedding stub on ${stub.url} (${dimensions} dimensions)`))
}
