import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok").annotations({ description: "Always ok: the process is up and answering." }),
  version: Schema.String.annotations({ description: "The service's version." }),
  schema_version: Schema.Int.annotations({ description: "The version of the store schema this build writes (the one an export records)." }),
  auth: Schema.Literal("enabled", "disabled").annotations({ description: "Whether requests need a key: disabled only when SERVICE_AUTH_DISABLED is set." }),
  embeddings: Schema.optional(Schema.Literal("ready", "model_missing", "model_unloadable").annotations({
    description: "Present with the local embedding provider only: whether its model is loaded, missing (run memory-service models pull) or not loadable."
  }))
}, { description: "The service is up." }) {}

export class HealthApi extends HttpApiGroup.make("health")
  .annotate(OpenApi.Description, "Whether the service is up, for load balancers and container health checks.")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness; needs no key and touches no store")
      .annotate(OpenApi.Description, "Answers 200 while the process serves requests. Needs no key, opens no store and tells nothing about the deployment beyond its version.")
  ) {}
