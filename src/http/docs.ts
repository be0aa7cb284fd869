import { HttpApi, HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { lazyModule } from "../util/lazyModule.js"
import { builtOnFirstUse } from "./builtOnFirstUse.js"
import { DOCS_PATH, OPENAPI_PATH } from "./docsPaths.js"

/** Swagger UI and the OpenAPI builder: loaded with the first request for the documentation. */
const docsPages = lazyModule("API documentation", () => import("./docsPages.js"))

/**
 * GET /docs and GET /openapi.json on the API's router. Both are built on their first request, not
 * at start: the OpenAPI document walks every schema of the API, and the page carries the Swagger
 * UI bundle, which a process that never serves them should pay for neither in time nor in memory.
 */
export const DocsLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const api = yield* HttpApi.Api
    // The documentation lives as long as the server: it is built in the server's scope.
    const scope = yield* Effect.scope
    const app = yield* builtOnFirstUse(
      // A module that cannot load is a broken installation: a fault, not an answer.
      docsPages.pipe(Effect.orDie, Effect.flatMap(({ docsApp }) => docsApp(api, scope)))
    )
    const handler = Effect.flatten(app)
    yield* router.get(DOCS_PATH, handler)
    yield* router.get(OPENAPI_PATH, handler)
  })
)
