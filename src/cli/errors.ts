import type { HttpApiError, HttpClientError } from "@effect/platform"
import { Data, type ParseResult } from "effect"
import { type ApiError, ERROR_CATALOGUE } from "../api/errors.js"

/** What every command fails with: printed as `<code>: <message>` on stderr, exit code 1. */
export class CliFailure extends Data.TaggedError("CliFailure")<{
  readonly code: string
  readonly message: string
}> {}

export const invalidInput = (message: string) => new CliFailure({ code: "invalid_input", message })

/** Everything a method of the derived client can fail with. */
export type ClientError = ApiError | HttpApiError.HttpApiDecodeError | HttpClientError.HttpClientError | ParseResult.ParseError

/**
 * The derived client fails with the contract's typed errors (mapped back to their wire code),
 * transport errors (nothing answered: network_error) or a response it could not decode.
 */
export const fromClientError = (error: ClientError): CliFailure => {
  switch (error._tag) {
    case "RequestError":
      return new CliFailure({ code: "network_error", message: `${error.request.method} ${error.request.url}: ${describeCause(error.cause)}` })
    case "ResponseError":
      return new CliFailure({ code: "http_error", message: `unexpected answer ${error.response.status} from ${error.request.method} ${error.request.url}` })
    case "HttpApiDecodeError":
      // The framework's own refusal of a request it could not decode.
      return new CliFailure({ code: "validation_error", message: error.message })
    case "ParseError":
      return new CliFailure({ code: "invalid_response", message: error.message })
    default:
      return new CliFailure({ code: ERROR_CATALOGUE[error._tag].code, message: error.message })
  }
}

const describeCause = (cause: unknown): string => {
  // fetch wraps the socket error (ECONNREFUSED…) one level down.
  if (cause instanceof Error) {
    const inner: unknown = cause.cause
    return inner instanceof Error ? `${cause.message} (${inner.message})` : cause.message
  }
  return String(cause)
}

/** A job's recorded error `"<code>: <message>"` back as a failure. */
export const fromErrorLine = (line: string): CliFailure => {
  const match = /^([a-z_]+): ([\s\S]*)$/.exec(line)
  return match === null
    ? new CliFailure({ code: "job_failed", message: line })
    : new CliFailure({ code: match[1] ?? "job_failed", message: match[2] ?? line })
}
