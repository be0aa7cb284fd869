import { type HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"
import type { ProviderError } from "../../api/errors.js"
import { type Origin, refused, statusFailure, unreachable, unreadable } from "../failures.js"
import { type CallPolicy, withPolicy } from "../retry.js"

// JSON over HTTP, for the providers without an SDK here.

export interface JsonPost {
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: unknown
  /** The provider's error type or code in an error body, when it has one. */
  readonly errorCode: (body: unknown) => string | undefined
  /** The wait in seconds an error body asks for, for a provider that says it there rather than in Retry-After. */
  readonly bodyRetryAfter?: (body: unknown) => string | undefined
}

/** POSTs a JSON body; a reply of status ≥ 400 becomes the matching provider error. */
export const postJson = (client: HttpClient.HttpClient, origin: Origin, post: JsonPost): Effect.Effect<unknown, ProviderError> =>
  HttpClientRequest.post(post.url).pipe(
    HttpClientRequest.setHeaders(post.headers),
    HttpClientRequest.bodyUnsafeJson(post.body),
    client.execute,
    Effect.catchTag("RequestError", (error) =>
      Effect.fail(error.reason === "Transport" ? unreachable(origin) : refused(origin, "the request could not be sent (check the base URL)"))),
    Effect.flatMap((response) =>
      response.status >= 400
        ? response.json.pipe(
          // An error body that is not JSON still fails with the status; only its code is lost.
          Effect.orElseSucceed(() => undefined),
          Effect.flatMap((body) =>
            Effect.fail(statusFailure(origin, response.status, {
              code: post.errorCode(body),
              retryAfter: response.headers["retry-after"] ?? post.bodyRetryAfter?.(body)
            })))
        )
        : Effect.mapError(response.json, () => unreadable(origin))),
    Effect.catchTag("ResponseError", () => Effect.fail(unreachable(origin)))
  )

/**
 * Embeds in consecutive batches of at most `size`, each under the call policy, checking that each
 * gives one vector per text.
 */
export const embedInBatches = (
  origin: Origin,
  size: number,
  policy: CallPolicy,
  request: (batch: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Float32Array>, ProviderError>
) =>
(texts: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<Float32Array>, ProviderError> =>
  Effect.map(
    Effect.forEach(
      Array.from({ length: Math.ceil(texts.length / size) }, (_, i) => texts.slice(i * size, (i + 1) * size)),
      (batch) => withPolicy(origin, policy, Effect.filterOrFail(request(batch), (vectors) => vectors.length === batch.length, () => unreadable(origin)))
    ),
    (vectors) => vectors.flat()
  )
