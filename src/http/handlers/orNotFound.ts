import { Effect, Option } from "effect"
import { NotFound } from "../../api/errors.js"

/** Maps an absent result to the typed 404 with the given message. */
export const orNotFound = (message: string) => <A, E, R>(effect: Effect.Effect<Option.Option<A>, E, R>) =>
  Effect.flatMap(effect, Option.match({
    onNone: () => Effect.fail(new NotFound({ message, details: {} })),
    onSome: Effect.succeed
  }))
