/** Sends a fuzz case byte for byte (node:http, so no client tidies the method, path or headers). */
import * as NodeHttp from "node:http"
import type { RequestCase } from "./fuzzCases.js"
import type { Outcome } from "./fuzzOracle.js"

const CHUNK_BYTES = 64 * 1024

const headerValue = (value: string | Array<string> | undefined) => Array.isArray(value) ? value.join(", ") : value

const writeChunked = (request: NodeHttp.ClientRequest, body: Buffer) => {
  let offset = 0
  const next = () => {
    if (request.destroyed) return
    if (offset >= body.length) return void request.end()
    const chunk = body.subarray(offset, offset + CHUNK_BYTES)
    offset += CHUNK_BYTES
    request.write(chunk, next)
  }
  next()
}

export const sendCase = (baseUrl: URL, agent: NodeHttp.Agent, request: RequestCase, timeoutMs: number) =>
  new Promise<Outcome>((resolve) => {
    const body = request.body === undefined ? undefined : Buffer.from(request.body)
    const headers: Record<string, string> = { ...request.headers }
    if (body !== undefined && !request.chunked) headers["content-length"] = String(body.length)
    let settled = false
    const settle = (outcome: Outcome) => {
      if (settled) return
      settled = true
      resolve(outcome)
    }
    const outgoing = NodeHttp.request({
      host: baseUrl.hostname,
      port: baseUrl.port,
      method: request.method,
      path: request.path,
      headers,
      agent
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        settle({
          _tag: "Reply",
          reply: {
            status: response.statusCode ?? 0,
            contentType: headerValue(response.headers["content-type"]),
            allow: headerValue(response.headers.allow),
            body: Buffer.concat(chunks).toString("utf8")
          }
        }))
      response.on("error", (error) => settle({ _tag: "Dropped", error: error.message }))
    })
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no response within ${timeoutMs} ms`)))
    outgoing.on("error", (error) => settle({ _tag: "Dropped", error: error.message }))
    if (body === undefined) outgoing.end()
    else if (request.chunked) writeChunked(outgoing, body)
    else outgoing.end(body)
  })
