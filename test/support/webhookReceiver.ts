import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

/** One request the receiver got, as it came. */
export interface Delivery {
  readonly body: string
  readonly json: Record<string, unknown>
  readonly headers: NodeHttp.IncomingHttpHeaders
  /** Whether X-SodaMem-Signature is the HMAC-SHA256 of the exact body with the receiver's secret. */
  readonly signed: boolean
}

/** How the receiver answers a request: a status, after a delay. */
export type Answer = (delivery: Delivery, index: number) => { readonly status: number; readonly delayMs?: number }

export interface Receiver {
  readonly url: string
  /** Every request received, in the order they arrived (answered or not). */
  readonly deliveries: Array<Delivery>
  /** How many requests were answered. */
  readonly answered: () => number
  answer: Answer
  /** Stops listening and drops open connections: the sender is refused until `up`. */
  readonly down: () => Promise<void>
  /** Listens again on the same port. */
  readonly up: () => Promise<void>
}

const listen = (server: NodeHttp.Server, port: number) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

/**
 * A webhook receiver on loopback that verifies every signature with `secret`, answering 204
 * unless told otherwise; closed with the scope.
 */
export const startReceiver = (secret: string, options: { readonly path?: string } = {}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      let answered = 0
      const receiver: Receiver = {
        url: "",
        deliveries: [],
        answered: () => answered,
        answer: () => ({ status: 204 }),
        down: () =>
          new Promise<void>((resolve) => {
            server.close(() => resolve())
            server.closeAllConnections()
          }),
        up: async () => void (await listen(server, port))
      }
      const server = NodeHttp.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8")
          const expected = `sha256=${NodeCrypto.createHmac("sha256", secret).update(body, "utf8").digest("hex")}`
          const delivery: Delivery = { body, json: JSON.parse(body) as Record<string, unknown>, headers: request.headers, signed: request.headers["x-sodamem-signature"] === expected }
          const index = receiver.deliveries.push(delivery) - 1
          const { delayMs = 0, status } = receiver.answer(delivery, index)
          setTimeout(() => {
            answered++
            response.writeHead(status).end()
          }, delayMs)
        })
      })
      const port = await listen(server, 0)
      return Object.assign(receiver, { url: `http://127.0.0.1:${port}${options.path ?? "/hooks/memory"}` })
    }),
    (receiver) => Effect.promise(() => receiver.down())
  )

/** Waits (about 30 s at most) until `check` holds; fails with `what` otherwise. */
export const eventually = (what: string, check: () => boolean, timeoutMs = 30_000) =>
  Effect.gen(function*() {
    const until = Date.now() + timeoutMs
    while (!check()) {
      if (Date.now() > until) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("25 millis")
    }
  })
