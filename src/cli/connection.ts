import { Option, Redacted } from "effect"
import type { ClientOptions } from "../client/derive.js"

export interface Connection {
  readonly apiUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted<string>>
}

/** The derived client's options for this connection: the key leaves its Redacted box only here. */
export const clientOptions = (connection: Connection): ClientOptions =>
  Option.match(connection.apiKey, {
    onNone: () => ({ baseUrl: connection.apiUrl }),
    onSome: (key) => ({ baseUrl: connection.apiUrl, apiKey: Redacted.value(key) })
  })
