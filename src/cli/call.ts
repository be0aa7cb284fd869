import { Effect } from "effect"
import { type CliFailure, type ClientError, fromClientError } from "./errors.js"

/** Runs one call of a derived client, its typed errors turned into CLI failures. */
export const call = <A, E extends ClientError, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, CliFailure, R> =>
  Effect.mapError(effect, fromClientError)
