import { Effect, FiberRef } from "effect"
import { Caller } from "../api/Authentication.js"

/** What the HTTP edge knows of the request being served; authentication fills in the key name. */
export interface RequestInfo {
  readonly id: string
  keyName: string | null
}

export const CurrentRequest = FiberRef.unsafeMake<RequestInfo | null>(null)

/** Who caused a change and in which request: recorded with every audit event and job. */
export interface AuditContext {
  readonly actor: string
  readonly requestId: string | null
}

export const currentAuditContext: Effect.Effect<AuditContext, never, Caller> = Effect.all({
  actor: Effect.map(Caller, (caller) => caller.name),
  requestId: Effect.map(FiberRef.get(CurrentRequest), (request) => request?.id ?? null)
})

/** Names the authenticated caller on the current request (for the request log). */
export const noteCaller = (name: string) =>
  Effect.map(FiberRef.get(CurrentRequest), (request) => {
    if (request !== null) request.keyName = name
  })
