import { Effect, FiberRef } from "effect"
import { Caller } from "../api/Authentication.js"
import { actorOf, type CallerIdentity } from "../domain/actors.js"
import type { AuditContext } from "../domain/audit.js"

/** What the HTTP edge knows of the request being served; authentication fills in the caller. */
export interface RequestInfo {
  readonly id: string
  keyName: string | null
  /** The named key's id; none for the service key, an anonymous caller, or before authentication. */
  keyId: string | null
}

export const CurrentRequest = FiberRef.unsafeMake<RequestInfo | null>(null)

/** The caller and the request of the change being made, for its audit events and jobs. */
export const currentAuditContext: Effect.Effect<AuditContext, never, Caller> = Effect.all({
  actor: Effect.map(Caller, actorOf),
  requestId: Effect.map(FiberRef.get(CurrentRequest), (request) => request?.id ?? null)
})

/** Names the authenticated caller on the current request (for the request log). */
export const noteCaller = (caller: CallerIdentity) =>
  Effect.map(FiberRef.get(CurrentRequest), (request) => {
    if (request === null) return
    request.keyName = caller.name
    request.keyId = caller.keyId
  })
