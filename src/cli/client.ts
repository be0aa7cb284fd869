import { type HttpApi, HttpApiClient, type HttpApiGroup, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect, Option, Redacted } from "effect"
import { deriveClient, type EffectClient, MemoryApi } from "../client/index.js"
import { call } from "./call.js"
import { type Connection, clientOptions } from "./connection.js"
import type { ClientError } from "./errors.js"

export { call } from "./call.js"
export type { Connection } from "./connection.js"

/** The derived client for this connection, over the HttpClient the command line provides (src/cli/run.ts). */
export const clientFor = (connection: Connection): Effect.Effect<EffectClient, never, HttpClient.HttpClient> =>
  deriveClient(clientOptions(connection))

type MemoryGroups = typeof MemoryApi extends HttpApi.HttpApi<infer _Id, infer Groups, infer _Error, infer _R> ? Groups : never
type GroupName = HttpApiGroup.HttpApiGroup.Name<MemoryGroups>

/** The client for one group of routes: a command builds only the methods of the group it calls. */
const groupClient = <const Group extends GroupName>(connection: Connection, group: Group) =>
  Effect.flatMap(HttpClient.HttpClient, (httpClient) =>
    HttpApiClient.group(MemoryApi, {
      group,
      baseUrl: connection.apiUrl,
      httpClient: Option.match(connection.apiKey, {
        onNone: () => httpClient,
        onSome: (key) => HttpClient.mapRequest(httpClient, HttpClientRequest.bearerToken(Redacted.value(key)))
      })
    }))

/** One group's client, then one call with it. */
export const withClient = <const Group extends GroupName, A, E extends ClientError, R>(
  connection: Connection,
  group: Group,
  f: (client: Effect.Effect.Success<ReturnType<typeof groupClient<Group>>>) => Effect.Effect<A, E, R>
) => Effect.flatMap(groupClient(connection, group), (client) => call(f(client)))
