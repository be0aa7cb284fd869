import type { CallOptions } from "./prompt.js"

/** What a call may say about memory, under `providerOptions.memory`. */
export interface MemoryCallOptions {
  /** false: no context and nothing stored for this call. */
  readonly enabled?: boolean
  /** The user of this call, instead of the middleware's. */
  readonly userId?: string
  /** The session this exchange is stored under, instead of the middleware's. */
  readonly sessionId?: string
}

const stringOr = (value: unknown) => typeof value === "string" && value !== "" ? value : undefined

/** The call's memory options, read from its provider options (the one place a call can carry its own). */
export const memoryCallOptions = (params: CallOptions): MemoryCallOptions => {
  const own = params.providerOptions?.memory
  if (own === undefined) return {}
  const userId = stringOr(own.userId)
  const sessionId = stringOr(own.sessionId)
  return {
    ...(own.enabled === false ? { enabled: false } : {}),
    ...(userId === undefined ? {} : { userId }),
    ...(sessionId === undefined ? {} : { sessionId })
  }
}
