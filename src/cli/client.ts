import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import { deriveClient, type EffectClient } from "../client/index.js"
import { call } from "./call.js"
import { type Connection, clientOptions } from "./connection.js"
import type { ClientError } from "./errors.js"

export { call } from "./call.js"
export type { Connection } from "./connection.js"

/** The derived client for this connection, over the HttpClient the command line provides (src/cli/run.ts). */
export const clientFor = (connection: Connection): Effect.Effect<EffectClient, never, HttpClient.HttpClient> =>
  deriveClient(clientOptions(connection))

/** The client, then one call with it. */
export const withClient = <A, E extends ClientError, R>(connection: Connection, f: (client: EffectClient) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(clientFor(connection), (client) => call(f(client)))
