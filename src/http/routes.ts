import type { Schema } from "effect"
import { Option } from "effect"
import { MemoryApi } from "../api/Api.js"
import { DOCS_PATH, OPENAPI_PATH } from "./docsPaths.js"

/** The schemas an endpoint decodes its request with, by where the input comes from. */
export interface RouteInputs {
  readonly path: Option.Option<Schema.Schema.All>
  readonly query: Option.Option<Schema.Schema.All>
  readonly body: Option.Option<Schema.Schema.All>
}

export interface Route {
  readonly method: string
  /** The path as documented, e.g. `/v1/jobs/{job_id}`: the key of metrics and the request log. */
  readonly template: string
  readonly pattern: RegExp
  readonly paramNames: ReadonlyArray<string>
  readonly inputs: RouteInputs
}

export interface RouteMatch {
  readonly route: Route
  readonly params: Record<string, string>
  /** Parameters whose segment is not valid percent-encoding (kept raw in `params`). */
  readonly undecodable: ReadonlyArray<string>
}

const NO_INPUTS: RouteInputs = { path: Option.none(), query: Option.none(), body: Option.none() }

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const makeRoute = (method: string, path: string, inputs: RouteInputs): Route => {
  const paramNames: Array<string> = []
  const source = path.split("/").map((segment) => {
    if (!segment.startsWith(":")) return escapeRegExp(segment)
    paramNames.push(segment.slice(1))
    return "([^/]+)"
  }).join("/")
  return {
    method,
    template: path.replace(/:([A-Za-z0-9_]+)/g, "{$1}"),
    // Case-insensitive, as the router matches.
    pattern: new RegExp(`^${source}$`, "i"),
    paramNames,
    inputs
  }
}

/** What routing reads of an endpoint of the API definition. */
interface EndpointShape {
  readonly method: string
  readonly path: string
  readonly pathSchema: Option.Option<Schema.Schema.All>
  readonly urlParamsSchema: Option.Option<Schema.Schema.All>
  readonly payloadSchema: Option.Option<Schema.Schema.All>
}

const endpointInputs = (endpoint: EndpointShape): RouteInputs => ({
  path: endpoint.pathSchema,
  query: endpoint.urlParamsSchema,
  body: endpoint.method === "GET" || endpoint.method === "DELETE" ? Option.none() : endpoint.payloadSchema
})

/**
 * Every route the server answers, derived from the API definition plus the documentation routes.
 * The endpoints are read from the groups directly: `HttpApi.reflect` would also sort every
 * endpoint's successes and errors by status, which routing does not need, at every start.
 */
const collectRoutes = (api: { readonly groups: Record<string, { readonly endpoints: Record<string, EndpointShape> }> }): ReadonlyArray<Route> => [
  ...Object.values(api.groups).flatMap((group) =>
    Object.values(group.endpoints).map((endpoint) => makeRoute(endpoint.method, endpoint.path, endpointInputs(endpoint)))),
  makeRoute("GET", DOCS_PATH, NO_INPUTS),
  makeRoute("GET", OPENAPI_PATH, NO_INPUTS)
]

const ROUTES = collectRoutes(MemoryApi)

const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

/** The path as the router compares it: repeated slashes as one, a trailing slash dropped. */
const routedPath = (path: string) => {
  const single = path.replace(/\/\/+/g, "/")
  return single.length > 1 && single.endsWith("/") ? single.slice(0, -1) : single
}

export const matchRoute = (method: string, path: string): RouteMatch | undefined => {
  const routed = routedPath(path)
  for (const route of ROUTES) {
    if (route.method !== method) continue
    const found = route.pattern.exec(routed)
    if (found === null) continue
    const params: Record<string, string> = {}
    const undecodable: Array<string> = []
    route.paramNames.forEach((name, i) => {
      const segment = found[i + 1] ?? ""
      const decoded = decodeSegment(segment)
      if (decoded === undefined) undecodable.push(name)
      params[name] = decoded ?? segment
    })
    return { route, params, undecodable }
  }
  return undefined
}

/** Methods that some route serves at this path (for 405 and its Allow header). */
export const allowedMethods = (path: string): ReadonlyArray<string> => {
  const routed = routedPath(path)
  return [...new Set(ROUTES.filter((route) => route.pattern.test(routed)).map((route) => route.method))]
}
