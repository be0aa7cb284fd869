import { useState } from "preact/hooks"

/**
 * Where the user enters the API key the console sends with every call. Once set it is shown
 * only as "set": the key itself is never displayed again.
 */
export const KeyForm = (props: { readonly apiKey: string | null; readonly onKey: (key: string | null) => void }) => {
  const [draft, setDraft] = useState("")
  if (props.apiKey !== null) {
    return (
      <div class="key-form">
        <span class="key-state">API key set</span>
        <button type="button" class="button button-quiet" onClick={() => props.onKey(null)}>Forget key</button>
      </div>
    )
  }
  return (
    <form
      class="key-form"
      onSubmit={(event) => {
        event.preventDefault()
        const key = draft.trim()
        if (key === "") return
        setDraft("")
        props.onKey(key)
      }}
    >
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        value={draft}
        autocomplete="off"
        placeholder="Bearer key"
        onInput={(event) => setDraft(event.currentTarget.value)}
      />
      <button type="submit" class="button button-primary">Use key</button>
    </form>
  )
}
