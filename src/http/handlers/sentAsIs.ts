import { HttpServerResponse } from "@effect/platform"
import type { ContextResponse, SearchResponse } from "../../api/RetrievalApi.js"

/**
 * A 200 whose body is the response as it is, not encoded by its endpoint's schema first. These
 * classes encode to their own fields (no field of theirs transforms; test/sentAsIs.test.ts holds
 * them to it), and they are built from typed values: encoding would only walk every hit's and
 * card's fields to copy them, some 40 µs a search of ten hits. The endpoints still declare them,
 * so /openapi.json and the typed client are unchanged.
 */
export const sentAsIs = (response: SearchResponse | ContextResponse) => HttpServerResponse.unsafeJson(response)
