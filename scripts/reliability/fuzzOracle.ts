/**
 * Whether a response is one the contract allows: never a 5xx (but the deliberate ones an
 * operation documents), every error in the envelope with a catalogued code at its catalogued
 * status and documented for the operation the path resolves to (or a routing 404/405), every
 * success documented and parseable.
 */
import { ERROR_CATALOGUE } from "../../src/api/errors.js"
import type { RequestCase } from "./fuzzCases.js"
import { type Operation, resolve } from "./openapiDocument.js"

export interface Reply {
  readonly status: number
  readonly contentType: string | undefined
  readonly allow: string | undefined
  readonly body: string
}

/** What came back: a response, or the connection ended without one. */
export type Outcome = { readonly _tag: "Reply"; readonly reply: Reply } | { readonly _tag: "Dropped"; readonly error: string }

/**
 * 5xx answers that are decisions, not faults: `not_implemented` (a scope key cannot narrow this
 * operation) and `service_unavailable` (no LLM is configured). Only where the operation documents them.
 */
const DELIBERATE_5XX = new Set(["not_implemented", "service_unavailable"])

const CATALOGUE_STATUS = new Map<string, number>(Object.values(ERROR_CATALOGUE).map(({ code, status }) => [code, status]))

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The envelope's code, or why the body is not the envelope. */
const envelopeCode = (body: string): { readonly code: string } | { readonly problem: string } => {
  const parsed = parseJson(body)
  if (!parsed.ok) return { problem: "error body is not JSON" }
  const envelope = parsed.value
  if (!isPlainObject(envelope)) return { problem: "error body is not an object" }
  const keys = Object.keys(envelope).sort().join(",")
  if (keys !== "code,details,message") return { problem: `error envelope has keys ${keys}` }
  if (typeof envelope.code !== "string" || typeof envelope.message !== "string" || !isPlainObject(envelope.details)) {
    return { problem: "error envelope fields have the wrong types" }
  }
  return { code: envelope.code }
}

const judgeSuccess = (operation: Operation, request: RequestCase, reply: Reply): string | undefined => {
  const documented = operation.responses.get(reply.status)
  if (documented === undefined || documented.codes.size > 0) return `${reply.status} is not a documented success of ${operation.id}`
  if (request.method === "HEAD") return undefined
  if (documented.contentType?.startsWith("application/json") === true && !parseJson(reply.body).ok) return "success body is not JSON"
  return undefined
}

/** Which (status, code) pairs the request may get, given where its path resolves. */
const allowsError = (operations: ReadonlyArray<Operation>, request: RequestCase, status: number, code: string | undefined) => {
  const resolution = resolve(operations, request.method, request.path.split("?")[0] ?? "")
  switch (resolution._tag) {
    case "NoRoute":
      return status === 404 && (code === undefined || code === "not_found")
    case "OtherMethod":
      return status === 405 && (code === undefined || code === "method_not_allowed")
    case "Operation": {
      const documented = resolution.operation.responses.get(status)
      if (documented === undefined) return false
      if (status >= 500 && (code === undefined || !DELIBERATE_5XX.has(code))) return false
      return code === undefined ? documented.codes.size > 0 : documented.codes.has(code)
    }
  }
}

/** Why the outcome breaks the contract, or undefined when it keeps it. */
export const judge = (operations: ReadonlyArray<Operation>, request: RequestCase, outcome: Outcome): string | undefined => {
  if (outcome._tag === "Dropped") {
    // An undeclared body is cut off at the limit by closing the connection: the documented refusal.
    return request.kind === "oversize-chunked" ? undefined : `connection dropped: ${outcome.error}`
  }
  const { reply } = outcome
  if (reply.status < 400) {
    const resolution = resolve(operations, request.method, request.path.split("?")[0] ?? "")
    if (resolution._tag !== "Operation") return `${reply.status} for a path and method no operation serves`
    return judgeSuccess(resolution.operation, request, reply)
  }
  // HEAD answers carry no body: only the status can be judged.
  if (request.method === "HEAD") {
    return allowsError(operations, request, reply.status, undefined) ? undefined : `undocumented status ${reply.status}`
  }
  if (reply.contentType?.startsWith("application/json") !== true) return `error content type ${reply.contentType ?? "(none)"}`
  const envelope = envelopeCode(reply.body)
  if ("problem" in envelope) return envelope.problem
  const catalogued = CATALOGUE_STATUS.get(envelope.code)
  if (catalogued === undefined) return `code ${envelope.code} is not in the catalogue`
  if (catalogued !== reply.status) return `code ${envelope.code} came with ${reply.status}, catalogued ${catalogued}`
  if (reply.status === 405 && reply.allow === undefined) return "405 without an Allow header"
  return allowsError(operations, request, reply.status, envelope.code)
    ? undefined
    : `${reply.status} ${envelope.code} is not documented here`
}
