import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Layer, Option } from "effect"
import { ServerLive } from "./app.js"

/** One JSON line on stderr naming why the process could not start. */
const reportStartupFailure = (cause: Cause.Cause<unknown>) =>
  Effect.sync(() => {
    const failure = Cause.failureOption(cause)
    const line = Option.match(failure, {
      onSome: (error) =>
        typeof error === "object" && error !== null && "code" in error && "message" in error
          ? { code: error.code, message: error.message, details: "details" in error ? error.details : {} }
          : { code: "startup_failed", message: String(error), details: {} },
      onNone: () => ({ code: "startup_failed", message: Cause.pretty(cause), details: {} })
    })
    process.stderr.write(`${JSON.stringify(line)}\n`)
  })

Layer.launch(ServerLive).pipe(
  Effect.tapErrorCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.void : reportStartupFailure(cause)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
