import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "./Authentication.js"
import { ScopeKeysInQuery } from "./ScopeKeysInQuery.js"
import { ConflictWire, InvalidScopeWire, NotFoundWire, StoreUnavailableWire } from "./errors.js"
import { UserId } from "./fields.js"
import { EXPORT_EXAMPLE } from "./exportExample.js"
import { QueryBoolean } from "./validation.js"

/** A user's export: JSON Lines, one record a line (docs/export.md). */
export const ExportLines = HttpApiSchema.Text({ contentType: "application/x-ndjson" }).annotations({
  description: "A user's export as JSON Lines: a header record, one typed record a line (sessions, turns, spans, memories with their versions and provenance, entities, edges, events), then an end record counting them. docs/export.md gives the format."
})

export const ExportQuery = Schema.Struct({
  user_id: UserId,
  include_vectors: Schema.optionalWith(
    QueryBoolean.annotations({ description: "Whether to add each turn's and memory's vector (base64 float32, of the header's model and dimensions); default false." }),
    { default: () => false }
  )
})

/** Without user_id, the export's own user (its header's). */
export const ImportQuery = Schema.Struct({
  user_id: Schema.optional(UserId.annotations({
    description: "The user to load the export into, who must have no data (else 409 conflict); absent: the export's own user (its header's user_id)."
  }))
})

export class ImportResult extends Schema.Class<ImportResult>("ImportResult")({
  user_id: Schema.String.annotations({ description: "The user the export was loaded into." }),
  source_user_id: Schema.String.annotations({ description: "The user the export was taken from." })
}, { description: "An import done." }) {}

export class PortabilityApi extends HttpApiGroup.make("portability")
  .annotate(
    OpenApi.Description,
    "Move one user's data, whole: export it as JSON Lines (a data-portability request, or a move between deployments), and load such an export into a user without data."
  )
  .add(
    HttpApiEndpoint.get("exportUser", "/v1/export")
      .setUrlParams(ExportQuery)
      .addSuccess(ExportLines)
      .addError(NotFoundWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Everything of one user's, streamed as JSON Lines: turns, memories with their versions and provenance, entities, edges, events")
      .annotate(
        OpenApi.Description,
        "A header record, then one typed record a line. Archived memories, purged rows and the words archived memories took from turns are never exported. include_vectors=true adds each turn's and fact's vector (base64 float32). 404 for a user without data."
      )
  )
  .add(
    HttpApiEndpoint.post("importUser", "/v1/import")
      .setUrlParams(ImportQuery)
      .setPayload(ExportLines.annotations({ examples: [EXPORT_EXAMPLE] }))
      .addSuccess(ImportResult, { status: 201 })
      .addError(ConflictWire)
      .addError(InvalidScopeWire)
      .addError(StoreUnavailableWire)
      .annotate(OpenApi.Summary, "Load an export into a user without data, as one unit with its audit event")
      .annotate(
        OpenApi.Description,
        "The body is an export (application/x-ndjson), up to SERVICE_MAX_IMPORT_BYTES; user_id defaults to the export's own. 409 when the user has data; 422 naming the first invalid line, and nothing is loaded."
      )
  )
  .middleware(ScopeKeysInQuery)
  .middleware(Authentication) {}
