/**
 * The floor under a session's overhead on this machine: a bare `node:http` server that answers each
 * POST by sending a fixed list of provider requests to the stub, one after another over kept-alive
 * connections, reading each reply as JSON. No framework, no validation, no store: what is left is
 * the transport and JSON cost that any service making the same calls pays.
 *
 * Run by `bench:llm` as a process of its own: `tsx scripts/bench/relay.ts <config.json>`, where the
 * config holds `{ stubUrl, requests: [{ path, body }], reply }`. Prints the same "Listening on" line
 * as the service, and answers with `x-response-time-ms` as the service does.
 */
import * as NodeFs from "node:fs"
import * as NodeHttp from "node:http"

export interface RelayConfig {
  readonly stubUrl: string
  /** Absolute paths on the stub's host, as the stub saw them. */
  readonly requests: ReadonlyArray<{ readonly path: string; readonly body: unknown }>
  readonly reply: unknown
}

const config = JSON.parse(NodeFs.readFileSync(process.argv[2]!, "utf8")) as RelayConfig
const agent = new NodeHttp.Agent({ keepAlive: true })

const send = (path: string, body: unknown) =>
  new Promise<unknown>((resolve, reject) => {
    const request = NodeHttp.request(new URL(path, config.stubUrl), {
      method: "POST",
      agent,
      headers: { "content-type": "application/json", authorization: "Bearer relay" }
    }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("error", reject)
      response.on("end", () => resolve(JSON.parse(Buffer.concat(chunks).toString())))
    })
    request.on("error", reject)
    request.end(JSON.stringify(body))
  })

const reply = JSON.stringify(config.reply)

const server = NodeHttp.createServer((request, response) => {
  const arrived = performance.now()
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    // Parsed and dropped: reading the request is part of what any service pays.
    JSON.parse(Buffer.concat(chunks).toString())
    void config.requests.reduce<Promise<unknown>>((previous, next) => previous.then(() => send(next.path, next.body)), Promise.resolve())
      .then(() =>
        response
          .writeHead(200, { "content-type": "application/json", "x-response-time-ms": (performance.now() - arrived).toFixed(3) })
          .end(reply)
      )
      .catch((error: unknown) => response.writeHead(502, { "content-type": "text/plain" }).end(String(error)))
  })
})

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  if (address !== null && typeof address === "object") console.log(`Listening on http://127.0.0.1:${address.port}`)
})
