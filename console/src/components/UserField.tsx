import { useId } from "preact/hooks"
import { useApiKey } from "../lib/apiKeyContext.js"
import { api } from "../lib/client.js"
import { useLoad } from "../lib/useAsync.js"

/**
 * A user id, typed or picked: there is no route listing users, so the suggestions are the
 * users with the largest stores, from the admin stats.
 */
export const UserField = (props: { readonly value: string; readonly onValue: (value: string) => void }) => {
  const id = useId()
  const listId = `${id}-users`
  const apiKey = useApiKey()
  const { state } = useLoad(() => api.stats(), [apiKey])
  const known = state.status === "ok" ? state.data.largest_stores.map((store) => store.user_id) : []
  return (
    <div class="field">
      <label for={id}>User id</label>
      <input
        id={id}
        type="text"
        value={props.value}
        required
        list={listId}
        placeholder="e.g. alice"
        autocomplete="off"
        spellcheck={false}
        onInput={(event) => props.onValue(event.currentTarget.value)}
      />
      <datalist id={listId}>
        {known.map((userId) => <option key={userId} value={userId} />)}
      </datalist>
    </div>
  )
}
