import { Effect, Fiber } from "effect"

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/** A spinner on stderr while `effect` runs, only on a terminal: pipes and logs get nothing. */
export const withSpinner = <A, E, R>(label: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (process.stderr.isTTY !== true) return effect
  let frame = 0
  const draw = Effect.sync(() => process.stderr.write(`\r${FRAMES[frame++ % FRAMES.length] ?? ""} ${label}`))
  return Effect.acquireUseRelease(
    Effect.forkDaemon(Effect.forever(Effect.zipRight(draw, Effect.sleep("80 millis")))),
    () => effect,
    (spinner) => Effect.zipRight(Fiber.interrupt(spinner), Effect.sync(() => process.stderr.write("\r\x1b[K")))
  )
}
