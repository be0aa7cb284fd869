import { Effect } from "effect"

interface Gate {
  readonly semaphore: Effect.Semaphore
  /** Fibers holding or waiting for it; the gate is dropped when none is left. */
  users: number
}

/** Runs `effect` holding `key`'s permit. */
export type KeyedGate = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

/**
 * One permit per key: an effect run through it for a key waits for the one before it with the
 * same key, and runs alongside those of other keys. A key's gate lives only while in use.
 */
export const makeKeyedGate = (): KeyedGate => {
  const gates = new Map<string, Gate>()
  return <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.suspend(() => {
        const gate = gates.get(key) ?? { semaphore: Effect.unsafeMakeSemaphore(1), users: 0 }
        gates.set(key, gate)
        gate.users++
        return restore(gate.semaphore.withPermits(1)(effect)).pipe(
          Effect.ensuring(Effect.sync(() => {
            if (--gate.users === 0) gates.delete(key)
          }))
        )
      })
    )
}
