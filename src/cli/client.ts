import type { HttpClient } from "@effect/platform"
import { Effect, Option, Redacted } from "effect"
import { deriveClient, type EffectClient } from "../client/index.js"
import { type CliFailure, type ClientError, fromClientError } from "./errors.js"

export interface Connection {
  readonly apiUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
}

/**
 * The derived client for this connection, over the HttpClient the command line provides (src/cli/run.ts);
 * the key leaves its Redacted box only here.
 */
export const clientFor = (connection: Connection): Effect.Effect<EffectClient, never, HttpClient.HttpClient> =>
  deriveClient(Option.match(connection.apiKey, {
    onNone: () => ({ baseUrl: connection.apiUrl }),
    onSome: (key) => ({ baseUrl: connection.apiUrl, apiKey: Redacted.value(key) })
  }))

/** Runs one call of the derived client, its typed errors turned into CLI failures. */
export const call = <A, E extends ClientError, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, CliFailure, R> =>
  Effect.mapError(effect, fromClientError)

/** The client, then one call with it. */
export const withClient = <A, E extends ClientError, R>(connection: Connection, f: (client: EffectClient) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(clientFor(connection), (client) => call(f(client)))
