import { type HttpApi, HttpApiClient, type HttpApiGroup, HttpClient, HttpClientRequest } from "@effect/platform"

export interface ClientOptions {
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <key>`; leave it out for a service with auth disabled. */
  readonly apiKey?: string
}

/** A client for these routes of the API (all of them, or a part) over the HttpClient the caller provides. */
export const deriveClientOf = <ApiId extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, ApiError, ApiR>(
  api: HttpApi.HttpApi<ApiId, Groups, ApiError, ApiR>,
  options: ClientOptions
) =>
  HttpApiClient.make(api, {
    baseUrl: options.baseUrl,
    transformClient: (client) =>
      options.apiKey === undefined ? client : HttpClient.mapRequest(client, HttpClientRequest.bearerToken(options.apiKey))
  })
