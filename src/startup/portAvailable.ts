import { Effect, Layer } from "effect"
import * as NodeNet from "node:net"
import { AppConfig } from "../config/AppConfig.js"
import { StartupError } from "./StartupError.js"

/** Whether the address can be listened on: the error code that says why not, or null. */
const listenRefusal = (port: number, host: string) =>
  Effect.async<string | null>((resume) => {
    const probe = NodeNet.createServer()
    probe.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? "EUNKNOWN")))
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resume(Effect.succeed(null))))
  })

/**
 * The configured port is tried before anything is opened or written: a port in use stops the
 * start naming it, with nothing made on disk or in a database. (Port 0 asks for any free port.)
 */
export const PortAvailableLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const { host, port } = yield* AppConfig
    if (port === 0) return
    const refusal = yield* listenRefusal(port, host)
    if (refusal === null) return
    return yield* new StartupError({
      code: "port_unavailable",
      message: refusal === "EADDRINUSE"
        ? `port ${port} on ${host} is already in use: stop what listens there, or set SERVICE_PORT to another port`
        : `port ${port} on ${host} cannot be listened on (${refusal}): set SERVICE_PORT or SERVICE_HOST to one this process may use`,
      details: { port, host, reason: refusal }
    })
  })
)
