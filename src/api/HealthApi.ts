import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok"),
  version: Schema.String,
  schema_version: Schema.Int,
  auth: Schema.Literal("enabled", "disabled")
}) {}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness; needs no key and touches no store")
  ) {}
