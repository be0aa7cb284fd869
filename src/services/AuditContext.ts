import { Effect, FiberRef } from "effect"
import { Caller } from "../api/Authentication.js"

/** The id of the request being served (set by the HTTP edge), for logs and audit events. */
export const CurrentRequestId = FiberRef.unsafeMake<string | null>(null)

/** Who caused a change and in which request: recorded with every audit event and job. */
export interface AuditContext {
  readonly actor: string
  readonly requestId: string | null
}

export const currentAuditContext: Effect.Effect<AuditContext, never, Caller> = Effect.all({
  actor: Effect.map(Caller, (caller) => caller.name),
  requestId: FiberRef.get(CurrentRequestId)
})
