/**
 * Who a change or a request is attributed to. Callers that are not named keys have fixed names:
 * the service key, every caller while auth is off, and the MCP server's tools.
 */
export const RESERVED_ACTOR_NAMES = ["bootstrap", "anonymous", "mcp"] as const

const RESERVED: ReadonlySet<string> = new Set(RESERVED_ACTOR_NAMES)

/** Whether a key name would read as one of the reserved actors (in any case, around any spaces). */
export const isReservedActorName = (name: string) => RESERVED.has(name.trim().toLowerCase())

/** The authenticated caller: a named key carries its id; the service key and anonymous callers carry none. */
export interface CallerIdentity {
  readonly name: string
  readonly keyId: string | null
}

/**
 * The actor an audit event names. A named key's is `key:<name>`, so no key can pass for a
 * reserved actor, not even one named so before such names were refused.
 */
export const actorOf = (caller: CallerIdentity) => caller.keyId === null ? caller.name : `key:${caller.name}`
