import { useRef, useState } from "preact/hooks"
import { ErrorNotice } from "../../components/ErrorNotice.js"
import { InputField } from "../../components/InputField.js"
import { Panel } from "../../components/Panel.js"
import { ApiError } from "../../lib/api.js"
import { api } from "../../lib/client.js"
import { formatCount } from "../../lib/format.js"
import type { EmbedResult } from "../../lib/types.js"

/** Each call's soft deadline: short, so the progress shown follows the run. */
const ROUND_SECONDS = 5

interface Progress {
  readonly embedded: number
  readonly switched: number
  readonly last: EmbedResult
  readonly running: boolean
}

const summary = ({ embedded, last, running, switched }: Progress) => {
  const counts = `${formatCount(embedded)} embedded, ${formatCount(last.remaining)} left (${last.model}, ${last.dimensions} dimensions)`
  const switches = switched > 0 ? `; ${formatCount(switched)} store${switched === 1 ? "" : "s"} switched to this model` : ""
  if (running) return `Embedding… ${counts}${switches}`
  if (last.status === "already_running") return `Another run is going for ${last.user_id ?? "a user"}: ${counts}${switches}`
  if (last.remaining === 0) return `Done: ${counts}${switches}`
  return `Stopped: ${counts}${switches}`
}

/**
 * Embeds the facts and turns that lack a vector of the configured model, call after call (each
 * bounded by a short deadline) until none is left, showing the count after each.
 */
export const EmbedPanel = () => {
  const [userId, setUserId] = useState("")
  const [batchSize, setBatchSize] = useState("64")
  const [progress, setProgress] = useState<Progress | undefined>(undefined)
  const [error, setError] = useState<ApiError | undefined>(undefined)
  const stopping = useRef(false)

  const start = async () => {
    stopping.current = false
    setError(undefined)
    const body = { ...(userId.trim() === "" ? {} : { user_id: userId.trim() }), batch_size: Number(batchSize), max_processing_time_sec: ROUND_SECONDS }
    let embedded = 0
    let switched = 0
    try {
      while (true) {
        const last = await api.embed(body)
        embedded += last.embedded
        switched += last.switched
        // A call that embedded nothing with rows left (they changed under it) is not repeated.
        const more = !stopping.current && last.status === "ok" && last.remaining > 0 && last.embedded > 0
        setProgress({ embedded, switched, last, running: more })
        if (!more) return
      }
    } catch (failure) {
      setProgress((shown) => shown === undefined ? undefined : { ...shown, running: false })
      setError(failure instanceof ApiError ? failure : new ApiError(0, "console_error", String(failure)))
    }
  }

  const running = progress?.running === true
  return (
    <Panel title="Embeddings">
      <p class="muted">
        Gives every fact and turn the vector of the configured embedding model. A store whose vectors are of another model or dimension is
        re-embedded in full and switches once every row has a new vector; its old vectors serve until then.
      </p>
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault()
          void start()
        }}
      >
        <InputField label="User" value={userId} onValue={setUserId} placeholder="every user" />
        <InputField label="Batch size" type="number" min={1} max={2048} value={batchSize} onValue={setBatchSize} />
        <button type="submit" class="button button-primary" disabled={running}>Embed</button>
        <button type="button" class="button" disabled={!running} onClick={() => (stopping.current = true)}>Stop</button>
      </form>
      {progress === undefined ? null : (
        <div class={`notice ${progress.last.status === "ok" ? "notice-info" : "notice-warn"}`} role="status">
          <p class="embed-progress">{summary(progress)}</p>
        </div>
      )}
      {error === undefined ? null : <ErrorNotice error={error} />}
    </Panel>
  )
}
