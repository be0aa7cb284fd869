import { HttpApi, OpenApi } from "@effect/platform"
import { SERVICE_VERSION } from "../version.js"
import { AdminApi } from "./AdminApi.js"
import { AnswerApi } from "./AnswerApi.js"
import { withApiErrors } from "./apiErrors.js"
import { EventsApi } from "./EventsApi.js"
import { GraphApi } from "./GraphApi.js"
import { MaintenanceApi } from "./MaintenanceApi.js"
import { HealthApi } from "./HealthApi.js"
import { JobsApi } from "./JobsApi.js"
import { MemoriesApi } from "./MemoriesApi.js"
import { ObservabilityApi } from "./ObservabilityApi.js"
import { PortabilityApi } from "./PortabilityApi.js"
import { RetrievalApi } from "./RetrievalApi.js"
import { documentValidationErrors } from "./openapi.js"

const API_DESCRIPTION = [
  "Per-user memory for conversational agents: ingest conversations, recall with no LLM call (search and a prompt-ready context block), answers with citations, corrections that supersede with an audit trail, and forgetting.",
  "",
  "Every route but /health, /docs and /openapi.json needs the API key, as `Authorization: Bearer <key>` or `X-API-Key: <key>`. Every error has the body `{code, message, details}`, `code` stable for matching.",
  "",
  "The same memory is served to agents over MCP (Model Context Protocol, streamable HTTP) at `/mcp`, behind the same key: see docs/mcp.md."
].join("\n")

/** The whole HTTP contract: routing, the OpenAPI document and the typed client derive from it. */
export class MemoryApi extends withApiErrors(HttpApi.make("memory-service")
  .add(HealthApi)
  .add(MemoriesApi)
  .add(RetrievalApi)
  .add(GraphApi)
  .add(MaintenanceApi)
  .add(AnswerApi)
  .add(EventsApi)
  .add(JobsApi)
  .add(ObservabilityApi)
  .add(AdminApi)
  .add(PortabilityApi))
  .annotateContext(OpenApi.annotations({
    title: "Memory service",
    version: SERVICE_VERSION,
    description: API_DESCRIPTION,
    transform: documentValidationErrors
  })) {}
