import type { HttpApi, HttpApiGroup } from "@effect/platform"
import { InternalErrorWire, PayloadTooLargeWire, ValidationErrorWire } from "./errors.js"

/** The errors any route may answer, whatever it declares: a body it cannot read, one too large, a failure of its own. */
export const withApiErrors = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(api: HttpApi.HttpApi<Id, Groups, E, R>) =>
  api.addError(ValidationErrorWire).addError(PayloadTooLargeWire).addError(InternalErrorWire)
