import { useLayoutEffect, useState } from "preact/hooks"
import { StatusBadge } from "../components/Badge.js"
import { Facts } from "../components/Facts.js"
import { InputField } from "../components/InputField.js"
import { EmptyState, Loaded } from "../components/Loaded.js"
import { PageTitle } from "../components/PageTitle.js"
import { Panel } from "../components/Panel.js"
import { UtcTime } from "../components/UtcTime.js"
import { useApiKey } from "../lib/apiKeyContext.js"
import { orNone } from "../lib/format.js"
import { navigate } from "../lib/router.js"
import { isFinished, POLL_INTERVAL_MS, useFollowedJob } from "./jobs/useFollowedJob.js"

/** One asynchronous job, followed until it ends; its id lives in the URL. */
export const JobsPage = ({ params }: { readonly params: URLSearchParams }) => {
  const apiKey = useApiKey()
  const id = params.get("id") ?? ""
  const [draft, setDraft] = useState(id)
  const [following, setFollowing] = useState(true)
  // Synchronous with the render, so a value typed right after the page appears is never reset.
  useLayoutEffect(() => {
    setDraft(id)
    setFollowing(true)
  }, [id])
  const { state, checks } = useFollowedJob(id, following, apiKey)
  return (
    <>
      <PageTitle title="Jobs" intro="Look up an asynchronous job (ingest, batch, answer, maintenance) and follow it until it ends." />
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault()
          const next = draft.trim()
          if (next !== "") navigate(`/jobs?id=${encodeURIComponent(next)}`)
        }}
      >
        <InputField label="Job id" value={draft} onValue={setDraft} required placeholder="32 hex characters" />
        <button type="submit" class="button button-primary">Follow job</button>
      </form>
      {id === ""
        ? <EmptyState>Enter the job id an asynchronous call returned.</EmptyState>
        : (
          <Panel title={`Job ${id}`}>
            <Loaded state={state} what="the job">
              {(job) => (
                <>
                  <p class="follow-state" role="status" aria-live="polite">
                    {isFinished(job)
                      ? `Finished (${job.status}) after ${checks} ${checks === 1 ? "check" : "checks"}.`
                      : following
                      ? `Following: checked ${checks} ${checks === 1 ? "time" : "times"}, every ${POLL_INTERVAL_MS / 1000} s.`
                      : "Not following."}
                  </p>
                  {isFinished(job) ? null : (
                    <button type="button" class="button" onClick={() => setFollowing(!following)}>
                      {following ? "Stop following" : "Follow again"}
                    </button>
                  )}
                  <Facts
                    rows={[
                      ["Status", <StatusBadge status={job.status} />],
                      ["Kind", job.kind],
                      ["User", job.user_id],
                      ["Created", <UtcTime value={job.created_at} />],
                      ["Finished", job.finished_at === null ? orNone(null) : <UtcTime value={job.finished_at} />],
                      ["Error", job.error === null ? orNone(null) : <span class="error-message">{job.error}</span>]
                    ]}
                  />
                  <h3>Result</h3>
                  {job.result === null
                    ? <EmptyState>{isFinished(job) ? "No result." : "Not finished yet."}</EmptyState>
                    : <pre class="job-result">{JSON.stringify(job.result, null, 2)}</pre>}
                </>
              )}
            </Loaded>
          </Panel>
        )}
    </>
  )
}
