import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok"),
  version: Schema.String,
  schema_version: Schema.Int,
  auth: Schema.Literal("enabled", "disabled"),
  /** Present with the local embedding provider only: whether its model is loaded (no path shown). */
  embeddings: Schema.optional(Schema.Literal("ready", "model_missing", "model_unloadable"))
}) {}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness; needs no key and touches no store")
  ) {}
