/**
 * The bare floor for bench:mixed: node:http alone, reading a JSON body shaped like a search request
 * and answering a small JSON body. Prints "Listening on http://…" like the service.
 */
import { createServer } from "node:http"

const server = createServer((request, response) => {
  const chunks: Array<Buffer> = []
  request.on("data", (chunk: Buffer) => chunks.push(chunk))
  request.on("end", () => {
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    const field = (name: string): unknown => typeof body === "object" && body !== null ? Reflect.get(body, name) : undefined
    const query = field("query")
    const answer = JSON.stringify({ results: [{ id: String(field("user_id")), score: typeof query === "string" ? query.length : 0 }] })
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) })
    response.end(answer)
  })
})
server.listen(Number(process.env.SERVICE_PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  console.log(`Listening on http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`)
})
