import { HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"

/** Free-form detail object of an error envelope. */
export const ErrorDetails = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export type ErrorDetails = typeof ErrorDetails.Type

const fields = { message: Schema.String, details: ErrorDetails }

export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields) {}
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", fields) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields) {}
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", fields) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields) {}
export class Unprocessable extends Schema.TaggedError<Unprocessable>()("Unprocessable", fields) {}
export class NotImplemented extends Schema.TaggedError<NotImplemented>()("NotImplemented", fields) {}
export class ProviderUnavailable extends Schema.TaggedError<ProviderUnavailable>()("ProviderUnavailable", fields) {}
export class ProviderRateLimited extends Schema.TaggedError<ProviderRateLimited>()("ProviderRateLimited", fields) {}
export class ProviderTimeout extends Schema.TaggedError<ProviderTimeout>()("ProviderTimeout", fields) {}
export class ProviderEmptyContent extends Schema.TaggedError<ProviderEmptyContent>()("ProviderEmptyContent", fields) {}
export class ProviderInvalidOutput extends Schema.TaggedError<ProviderInvalidOutput>()("ProviderInvalidOutput", fields) {}
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", fields) {}
export class InvalidScope extends Schema.TaggedError<InvalidScope>()("InvalidScope", fields) {}
export class ConfigInvalid extends Schema.TaggedError<ConfigInvalid>()("ConfigInvalid", fields) {}
export class IngestFailed extends Schema.TaggedError<IngestFailed>()("IngestFailed", fields) {}
export class StoreUnavailable extends Schema.TaggedError<StoreUnavailable>()("StoreUnavailable", fields) {}
// Answered by the connection layer, before any route: no endpoint declares them.
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", fields) {}
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", fields) {}
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()("HeadersTooLarge", fields) {}

export type ApiError =
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | PayloadTooLarge
  | ValidationError
  | InternalError
  | Conflict
  | Unprocessable
  | NotImplemented
  | ProviderUnavailable
  | ProviderRateLimited
  | ProviderTimeout
  | ProviderEmptyContent
  | ProviderInvalidOutput
  | ServiceUnavailable
  | InvalidScope
  | ConfigInvalid
  | IngestFailed
  | StoreUnavailable
  | BadRequest
  | RequestTimeout
  | HeadersTooLarge

/** Stable wire code and HTTP status of each error, keyed by its tag. */
export const ERROR_CATALOGUE = {
  Unauthorized: { code: "unauthorized", status: 401 },
  Forbidden: { code: "forbidden", status: 403 },
  NotFound: { code: "not_found", status: 404 },
  MethodNotAllowed: { code: "method_not_allowed", status: 405 },
  PayloadTooLarge: { code: "payload_too_large", status: 413 },
  ValidationError: { code: "validation_error", status: 422 },
  InternalError: { code: "internal_error", status: 500 },
  Conflict: { code: "conflict", status: 409 },
  Unprocessable: { code: "unprocessable", status: 422 },
  NotImplemented: { code: "not_implemented", status: 501 },
  ProviderUnavailable: { code: "provider_unavailable", status: 400 },
  ProviderRateLimited: { code: "provider_rate_limited", status: 400 },
  ProviderTimeout: { code: "provider_timeout", status: 400 },
  ProviderEmptyContent: { code: "provider_empty_content", status: 400 },
  ProviderInvalidOutput: { code: "provider_invalid_output", status: 400 },
  ServiceUnavailable: { code: "service_unavailable", status: 503 },
  InvalidScope: { code: "invalid_scope", status: 400 },
  ConfigInvalid: { code: "config_invalid", status: 400 },
  IngestFailed: { code: "ingest_failed", status: 400 },
  StoreUnavailable: { code: "vector_store_unavailable", status: 503 },
  BadRequest: { code: "bad_request", status: 400 },
  RequestTimeout: { code: "request_timeout", status: 408 },
  HeadersTooLarge: { code: "headers_too_large", status: 431 }
} as const satisfies Record<ApiError["_tag"], { code: string; status: number }>

export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" && u !== null && "_tag" in u && typeof u._tag === "string" && u._tag in ERROR_CATALOGUE

/** An error as the jobs record it: `"<code>: <message>"`. */
export const errorLine = (error: ApiError) => `${ERROR_CATALOGUE[error._tag].code}: ${error.message}`

/** The body every error is sent with. */
export const errorEnvelope = (error: ApiError) => ({
  code: ERROR_CATALOGUE[error._tag].code,
  message: error.message,
  details: error.details
})

type ErrorClass<E extends ApiError> = Schema.Schema<E, Schema.Struct.Encoded<typeof fields> & { readonly _tag: E["_tag"] }> & {
  readonly _tag: E["_tag"]
  new(props: { readonly message: string; readonly details: ErrorDetails }): E
}

/**
 * The wire form of an error: exactly `{code, message, details}` (no `_tag`), with its status
 * for the HttpApi, decoding back to the typed error in the derived client.
 */
const wire = <E extends ApiError>(errorClass: ErrorClass<E>) => {
  const { code, status } = ERROR_CATALOGUE[errorClass._tag as E["_tag"]]
  return Schema.transform(
    Schema.Struct({
      code: Schema.Literal(code).annotations({ description: "The error's stable code: match on it." }),
      message: Schema.String.annotations({ description: "What went wrong, for reading; its wording may change." }),
      details: ErrorDetails.annotations({
        description: "More about it, free-form; {} when there is nothing more (a validation_error lists errors[] as {type, loc, msg, input, ctx?})."
      })
    }),
    Schema.typeSchema(errorClass),
    {
      strict: false,
      decode: ({ details, message }) => new errorClass({ message, details }),
      encode: (error) => ({ code, message: error.message, details: error.details })
    }
  ).annotations({ ...HttpApiSchema.annotations({ status }), identifier: errorClass._tag, title: code })
}

export const UnauthorizedWire = wire(Unauthorized)
export const ForbiddenWire = wire(Forbidden)
export const NotFoundWire = wire(NotFound)
export const PayloadTooLargeWire = wire(PayloadTooLarge)
export const ValidationErrorWire = wire(ValidationError)
export const InternalErrorWire = wire(InternalError)
export const ConflictWire = wire(Conflict)
export const UnprocessableWire = wire(Unprocessable)
export const NotImplementedWire = wire(NotImplemented)
export const ProviderUnavailableWire = wire(ProviderUnavailable)
export const ProviderRateLimitedWire = wire(ProviderRateLimited)
export const ProviderTimeoutWire = wire(ProviderTimeout)
export const ProviderEmptyContentWire = wire(ProviderEmptyContent)
export const ProviderInvalidOutputWire = wire(ProviderInvalidOutput)
export const ServiceUnavailableWire = wire(ServiceUnavailable)
export const InvalidScopeWire = wire(InvalidScope)
export const ConfigInvalidWire = wire(ConfigInvalid)
export const IngestFailedWire = wire(IngestFailed)
export const StoreUnavailableWire = wire(StoreUnavailable)

/** What an LLM provider call can fail with; each is a `provider_*` code on the wire. */
export type ProviderError = ProviderUnavailable | ProviderRateLimited | ProviderTimeout | ProviderEmptyContent | ProviderInvalidOutput

/** Every provider failure in one declaration (all are 400), for the routes that call an LLM. */
export const ProviderFailureWire = Schema.Union(
  ProviderUnavailableWire,
  ProviderRateLimitedWire,
  ProviderTimeoutWire,
  ProviderEmptyContentWire,
  ProviderInvalidOutputWire
).annotations({ ...HttpApiSchema.annotations({ status: 400 }), identifier: "ProviderFailure" })
