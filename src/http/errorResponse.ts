import { HttpServerResponse } from "@effect/platform"
import { type ApiError, ERROR_CATALOGUE, errorEnvelope, ValidationError } from "../api/errors.js"
import type { FieldError } from "../api/fieldErrors.js"

/**
 * The error envelope with the catalogue's status. A body refused as too large may still be
 * arriving: its answer closes the connection, rather than keeping it open while the rest is
 * read (a chunked body may never end).
 */
export const errorResponse = (error: ApiError, headers: Record<string, string> = {}) =>
  HttpServerResponse.unsafeJson(errorEnvelope(error), {
    status: ERROR_CATALOGUE[error._tag].status,
    headers: error._tag === "PayloadTooLarge" ? { ...headers, connection: "close" } : headers
  })

export const validationFailed = (errors: ReadonlyArray<FieldError>) =>
  new ValidationError({ message: "request failed schema validation", details: { errors } })
