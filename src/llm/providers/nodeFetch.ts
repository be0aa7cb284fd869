import type { NodeHttpClient } from "@effect/platform-node"
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"

// An SDK's calls over node:http with the providers' kept-alive connections. Node's built-in fetch
// costs about half a millisecond per call on top of the round trip, paid by each call of a session.

/** What an SDK sends its requests with. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

// Statuses whose response cannot carry a body.
const NULL_BODY = new Set([101, 204, 205, 304])

const requestBody = (body: RequestInit["body"]): string | Uint8Array | undefined => {
  if (body === undefined || body === null) return undefined
  if (typeof body === "string" || body instanceof Uint8Array) return body
  if (body instanceof ArrayBuffer) return new Uint8Array(body)
  throw new TypeError("only string and byte bodies are sent")
}

const abortError = () => new DOMException("the request was aborted", "AbortError")

/** A `fetch` for HTTP(S) JSON calls through the agent: string or byte bodies, the whole reply read before it resolves. */
export const nodeFetch = (agent: NodeHttpClient.HttpAgent): Fetch => (input, init = {}) =>
  new Promise((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : input)
    if (url.protocol !== "http:" && url.protocol !== "https:") return reject(new TypeError(`unsupported protocol ${url.protocol}`))
    const signal = init.signal ?? undefined
    if (signal?.aborted === true) return reject(abortError())
    let body: string | Uint8Array | undefined
    try {
      body = requestBody(init.body)
    } catch (error) {
      return reject(error)
    }
    const headers: Record<string, string> = {}
    new Headers(init.headers).forEach((value, name) => (headers[name] = value))
    const options = { method: init.method ?? "GET", headers }
    const onResponse = (response: NodeHttp.IncomingMessage) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", reject)
      response.on("end", () => {
        signal?.removeEventListener("abort", onAbort)
        const status = response.statusCode ?? 502
        const replyHeaders = new Headers()
        for (const [name, value] of Object.entries(response.headers)) {
          if (value === undefined) continue
          for (const one of Array.isArray(value) ? value : [value]) replyHeaders.append(name, one)
        }
        resolve(new Response(NULL_BODY.has(status) ? null : Buffer.concat(chunks), { status, statusText: response.statusMessage ?? "", headers: replyHeaders }))
      })
    }
    const request = url.protocol === "https:"
      ? NodeHttps.request(url, { ...options, agent: agent.https }, onResponse)
      : NodeHttp.request(url, { ...options, agent: agent.http }, onResponse)
    const onAbort = () => {
      request.destroy()
      reject(abortError())
    }
    signal?.addEventListener("abort", onAbort, { once: true })
    request.on("error", (cause) => {
      signal?.removeEventListener("abort", onAbort)
      reject(new TypeError("fetch failed", { cause }))
    })
    request.end(body)
  })
