import * as NodeCrypto from "node:crypto"
import { normalizeName } from "./text.js"

// The formats of the ids the service hands out; every storage backend writes the same ones.

export const newSessionId = () => NodeCrypto.randomUUID().replaceAll("-", "")

export const newFactId = () => `fact_${NodeCrypto.randomUUID()}`

export const newEventId = () => `trace_${NodeCrypto.randomUUID()}`

export const newEdgeId = () => `edge_${NodeCrypto.randomUUID()}`

/** Entity ids are stable per normalized name, so every mention of a name links to one entity. */
export const entityId = (name: string) => `entity_${normalizeName(name).replaceAll(" ", "_")}`

export const turnId = (sessionId: string, position: number) => `${sessionId}_turn_${position}`

export const spanId = (sessionId: string, position: number) => `span_${sessionId}_${position}`
