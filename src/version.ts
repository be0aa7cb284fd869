/** Version of this build, reported by /health (kept equal to package.json by a test). */
export const SERVICE_VERSION = "0.1.0"

/** Version of the per-user store schema this build reads and writes. */
export const STORE_SCHEMA_VERSION = 7
