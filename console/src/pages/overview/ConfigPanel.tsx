import { Facts } from "../../components/Facts.js"
import { Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { UtcTime } from "../../components/UtcTime.js"
import { formatBytes, formatCount, orNone, setOrNot, shortUtc } from "../../lib/format.js"
import type { ConfigView } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"

/** The effective configuration. The service never returns a secret, only whether it is set. */
export const ConfigPanel = ({ state }: { readonly state: AsyncState<ConfigView> }) => (
  <Panel title="Configuration">
    <Loaded state={state} what="configuration">
      {(config) => (
        <Facts
          rows={[
            ["Authentication", config.auth],
            ["Service API key", setOrNot(config.api_key_set)],
            ["Named keys active", formatCount(config.named_keys_active)],
            ...(config.storage_backend === "postgres"
              ? [["Storage", `PostgreSQL, up to ${formatCount(config.database_pool_max ?? 0)} connections`] as const]
              : [
                ["Storage", "SQLite"] as const,
                ["Data root", <code>{config.data_root}</code>] as const,
                ["Open stores at most", formatCount(config.store_cache_max)] as const
              ]),
            ["Purge allowed", config.allow_purge ? "yes" : "no"],
            ["LLM provider", config.llm_provider],
            ["LLM model", orNone(config.llm_model)],
            ["LLM API key", setOrNot(config.llm_api_key_set)],
            ["LLM base URL", orNone(config.llm_base_url)],
            ["Embedding provider", orNone(config.embed_provider)],
            ["Embedding model", orNone(config.embed_model)],
            ["Embedding dimensions", orNone(config.embed_dimensions)],
            ["Embedding model state", orNone(config.embed_state)],
            ["Embeddings unavailable", orNone(config.embed_unavailable)],
            ["CORS origins", config.cors_origins.length === 0 ? "none" : config.cors_origins.join(", ")],
            ["Largest request body", formatBytes(config.max_body_bytes)],
            ["Request log rows kept", config.request_log_max === 0 ? "off" : formatCount(config.request_log_max)],
            ["Job records kept", formatCount(config.job_retention_max)],
            ["Job lease", `${formatCount(config.job_lease_seconds)} s`],
            ["Workers", config.workers],
            ["Lock contention", formatCount(config.lock_contention_count)],
            ["Last contention", config.lock_contention_last === null ? orNone(null) : <UtcTime value={config.lock_contention_last} />]
          ]}
        />
      )}
    </Loaded>
  </Panel>
)

/** Shown above everything when another process has tried to open this data root. */
export const LockContentionWarning = ({ config }: { readonly config: ConfigView }) =>
  config.lock_contention_count > 0
    ? (
      <div class="notice notice-warn" role="alert">
        <p>
          <strong>Lock contention:</strong> another process was refused this data root {config.lock_contention_count}{" "}
          {config.lock_contention_count === 1 ? "time" : "times"}
          {config.lock_contention_last === null ? "" : `, last at ${shortUtc(config.lock_contention_last)}`}. Only one server may
          own a data root; check for a second instance started against it.
        </p>
      </div>
    )
    : null
