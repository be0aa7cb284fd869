import { useState } from "preact/hooks"
import { Badge } from "../../components/Badge.js"
import { ConfirmButton } from "../../components/ConfirmButton.js"
import { ErrorNotice } from "../../components/ErrorNotice.js"
import { InputField } from "../../components/InputField.js"
import { EmptyState, Loaded } from "../../components/Loaded.js"
import { Panel } from "../../components/Panel.js"
import { UtcTime } from "../../components/UtcTime.js"
import { useApiKey } from "../../lib/apiKeyContext.js"
import { api } from "../../lib/client.js"
import { orNone, shortUtc } from "../../lib/format.js"
import type { CreatedApiKey } from "../../lib/types.js"
import { useAction, useLoad } from "../../lib/useAsync.js"

/** The plaintext of a key just minted: the service returns it this once and never again. */
const MintedKey = ({ minted, onDismiss }: { readonly minted: CreatedApiKey; readonly onDismiss: () => void }) => (
  <div class="notice notice-ok" role="status">
    <p>Key <strong>{minted.key.name}</strong> minted. Copy it now:</p>
    <p><code class="minted-key">{minted.api_key}</code></p>
    <p class="muted">{minted.warning}</p>
    <button type="button" class="button" onClick={onDismiss}>I have copied it</button>
  </div>
)

/** Named keys, for telling callers apart in the request log: mint, list, revoke. */
export const ApiKeysPanel = () => {
  const apiKey = useApiKey()
  const [name, setName] = useState("")
  const keys = useLoad(() => api.listKeys(), [apiKey])
  const mint = useAction((keyName: string) => api.createKey(keyName))
  const revoke = useAction((id: string) => api.revokeKey(id))
  return (
    <Panel title="API keys">
      <form
        class="toolbar"
        onSubmit={async (event) => {
          event.preventDefault()
          if (await mint.run(name.trim()) !== undefined) {
            setName("")
            void keys.reload()
          }
        }}
      >
        <InputField label="Key name" value={name} onValue={setName} required placeholder="e.g. ingest-worker" />
        <button type="submit" class="button button-primary" disabled={mint.state.status === "loading"}>Mint key</button>
      </form>
      {mint.state.status === "ok" ? <MintedKey minted={mint.state.data} onDismiss={mint.reset} /> : null}
      {mint.state.status === "error" ? <ErrorNotice error={mint.state.error} /> : null}
      {revoke.state.status === "error" ? <ErrorNotice error={revoke.state.error} /> : null}
      <Loaded state={keys.state} what="keys">
        {(list) =>
          list.keys.length === 0
            ? <EmptyState>No named key yet: every caller uses the service key.</EmptyState>
            : (
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Name</th>
                      <th scope="col">Prefix</th>
                      <th scope="col">Created</th>
                      <th scope="col">Last used</th>
                      <th scope="col">State</th>
                      <th scope="col"><span class="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody>
                    {list.keys.map((key) => (
                      <tr key={key.id}>
                        <td>{key.name}</td>
                        <td><code>{key.prefix}…</code></td>
                        <td><UtcTime value={key.created_at} /></td>
                        <td>{key.last_used_at === null ? orNone(null) : <UtcTime value={key.last_used_at} />}</td>
                        <td>{key.revoked ? <Badge tone="bad">revoked{key.revoked_at === null ? "" : ` ${shortUtc(key.revoked_at)}`}</Badge> : <Badge tone="good">active</Badge>}</td>
                        <td>
                          {key.revoked ? null : (
                            <ConfirmButton
                              label={`Revoke ${key.name}`}
                              danger
                              disabled={revoke.state.status === "loading"}
                              onConfirm={async () => {
                                if (await revoke.run(key.id) !== undefined) void keys.reload()
                              }}
                            />
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
      </Loaded>
    </Panel>
  )
}
