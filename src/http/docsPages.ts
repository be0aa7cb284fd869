import { HttpApi, HttpApiBuilder, HttpApiSwagger } from "@effect/platform"
import { Context, Effect, Layer, type Scope } from "effect"
import { DOCS_PATH, OPENAPI_PATH } from "./docsPaths.js"

/** The Swagger UI page and the OpenAPI document, on a router of their own. */
const DocsRoutesLive = Layer.mergeAll(
  HttpApiSwagger.layer({ path: DOCS_PATH }),
  HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })
).pipe(Layer.provideMerge(HttpApiBuilder.Router.Live))

/**
 * The app answering /docs and /openapi.json for `api`: the OpenAPI document is derived from the
 * API's schemas and the page embeds the Swagger UI bundle (~2 MB), both built once, here.
 */
export const docsApp = (api: Context.Tag.Service<HttpApi.Api>, scope: Scope.Scope) =>
  Layer.buildWithScope(DocsRoutesLive.pipe(Layer.provide(Layer.succeed(HttpApi.Api, api))), scope).pipe(
    Effect.flatMap((built) => Context.get(built, HttpApiBuilder.Router).router)
  )
