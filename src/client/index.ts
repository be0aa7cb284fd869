/**
 * The typed client for TypeScript callers, derived from the same API definition the server
 * serves: every route, its inputs, its answers and its typed errors.
 *
 *   const memory = makePromiseClient({ baseUrl: "http://127.0.0.1:8000", apiKey: process.env.SERVICE_API_KEY })
 *   await memory.memories.add({ payload: { user_id: "alice", messages: [{ role: "user", content: "…" }], infer: false, async_mode: false } })
 *   const { hits } = await memory.retrieval.search({ payload: { user_id: "alice", query: "…", top_k: 5, include_superseded: false } })
 */
import { FetchHttpClient, type HttpClientResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { MemoryApi } from "../api/Api.js"
import { type ClientOptions, deriveClientOf } from "./derive.js"

export { MemoryApi } from "../api/Api.js"
export type { ClientOptions } from "./derive.js"

/** The client's routes over the HttpClient the caller provides (the CLI uses node's own, which loads faster than fetch). */
export const deriveClient = (options: ClientOptions) => deriveClientOf(MemoryApi, options)

/** The Effect client: each route a method returning an Effect that fails with the route's typed errors. */
export const makeClient = (options: ClientOptions) => deriveClient(options).pipe(Effect.provide(FetchHttpClient.layer))

export type EffectClient = Effect.Effect.Success<ReturnType<typeof makeClient>>

/** A method as a promise; the facade never asks for the raw response, so its answer is the value alone. */
type Promised<Method> = Method extends (...args: infer Args) => Effect.Effect<infer A, unknown, unknown>
  ? (...args: Args) => Promise<Exclude<A, readonly [unknown, HttpClientResponse.HttpClientResponse]>>
  : never

/** The same client with promises: a route's typed error rejects the promise (its `_tag` names it). */
export type PromiseClient = {
  readonly [Group in keyof EffectClient]: { readonly [Method in keyof EffectClient[Group]]: Promised<EffectClient[Group][Method]> }
}

/** Runs an Effect to a promise that rejects with the typed error itself (not a wrapper). */
const toPromise = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.either(effect)).then(Either.getOrThrowWith((error) => error))

export const makePromiseClient = async (options: ClientOptions): Promise<PromiseClient> => {
  const client = await Effect.runPromise(makeClient(options))
  // The derived client is a record of groups of methods; its precise types are restated by PromiseClient.
  const groups = Object.entries(client as unknown as Record<string, Record<string, (...args: Array<unknown>) => Effect.Effect<unknown, unknown>>>)
  return Object.fromEntries(groups.map(([group, methods]) => [
    group,
    Object.fromEntries(Object.entries(methods).map(([name, method]) => [name, (...args: Array<unknown>) => toPromise(method(...args))]))
  ])) as unknown as PromiseClient
}
