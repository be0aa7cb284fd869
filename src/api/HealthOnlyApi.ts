import { HttpApi } from "@effect/platform"
import { withApiErrors } from "./apiErrors.js"
import { HealthApi } from "./HealthApi.js"

/**
 * The health route alone, with the errors every route may answer: what a caller that only asks
 * whether the service is up decodes, without building the rest of the API's schemas.
 */
export class HealthOnlyApi extends withApiErrors(HttpApi.make("memory-service").add(HealthApi)) {}
