import { ConfirmButton } from "../../components/ConfirmButton.js"
import { ErrorNotice } from "../../components/ErrorNotice.js"
import { Link } from "../../components/Link.js"
import { Loading } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import type { DeleteResult } from "../../lib/types.js"
import type { AsyncState } from "../../lib/useAsync.js"
import { memoriesPath } from "./paths.js"

const outcome = (result: DeleteResult) => {
  if (result.purged) return "Purged: the memory and what hung on it are erased."
  if (!result.deleted) return "No such memory in this user's store."
  if (result.already_deleted) return "It was already archived."
  return "Archived: it no longer appears in lists, search or context; its record stays."
}

/**
 * Archive, and purge where the server allows it (its configuration says whether). Purge is not
 * offered at all otherwise, since the service would refuse it.
 */
export const RemovalPanel = (props: {
  readonly user: string
  readonly purgeAllowed: boolean | undefined
  readonly removal: AsyncState<DeleteResult>
  readonly onRemove: (purge: boolean) => void
}) => {
  const busy = props.removal.status === "loading"
  const done = props.removal.status === "ok"
  return (
    <Panel title="Archive or purge">
      <div class="actions">
        <ConfirmButton label="Archive" disabled={busy || done} onConfirm={() => props.onRemove(false)} />
        {props.purgeAllowed === true
          ? <ConfirmButton label="Purge" danger disabled={busy || (props.removal.status === "ok" && props.removal.data.purged)} onConfirm={() => props.onRemove(true)} />
          : null}
      </div>
      {props.purgeAllowed === false ? <p class="muted">Purge is off on this server (SERVICE_ALLOW_PURGE).</p> : null}
      {props.removal.status === "loading" ? <Loading what="the change" /> : null}
      {props.removal.status === "error" ? <ErrorNotice error={props.removal.error} /> : null}
      {props.removal.status === "ok"
        ? (
          <div class="notice notice-ok" role="status">
            <p>{outcome(props.removal.data)}</p>
            <p><Link to={memoriesPath(props.user)}>Back to the memories of {props.user}</Link></p>
          </div>
        )
        : null}
    </Panel>
  )
}
