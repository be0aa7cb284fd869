import { createApiClient } from "./api.js"
import { readApiKey } from "./apiKey.js"

/** The console's one client: same origin, with the key from sessionStorage. */
export const api = createApiClient({ apiKey: readApiKey })
