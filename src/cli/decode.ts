import { Effect, Schema } from "effect"
import { fieldErrorLine } from "../api/fieldErrors.js"
import { CliFailure } from "./errors.js"

/**
 * Builds a request through the contract's own schema: defaults are filled in and bad input is
 * refused before anything is sent, with the same rules the server applies.
 */
export const request = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, CliFailure> =>
  Schema.decodeUnknown(schema)(input).pipe(
    Effect.mapError((error) =>
      new CliFailure({ code: "validation_error", message: fieldErrorLine(error.issue, input) })
    )
  )
