import { Deferred, Effect, Fiber, type Scope } from "effect"

/**
 * `build` run once, when the effect returned is first run, and its result for every run after.
 * It runs on a fiber forked here, in the caller's scope (the server's, at start), not on the first
 * request's: it sees the server's context rather than that request's, and a first caller that
 * goes away does not cut it short.
 */
export const builtOnFirstUse = <A, E, R>(build: Effect.Effect<A, E, R>): Effect.Effect<Effect.Effect<A, E>, never, R | Scope.Scope> =>
  Effect.gen(function*() {
    const wanted = yield* Deferred.make<void>()
    const building = yield* Effect.forkScoped(Effect.zipRight(Deferred.await(wanted), build))
    return Effect.zipRight(Deferred.succeed(wanted, undefined), Fiber.join(building))
  })
