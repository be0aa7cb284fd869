import { useLayoutEffect, useState } from "preact/hooks"
import { StatusBadge } from "../components/Badge.js"
import { Link } from "../components/Link.js"
import { EmptyState, Loaded } from "../components/Loaded.js"
import { PageTitle } from "../components/PageTitle.js"
import { Pager } from "../components/Pager.js"
import { Panel } from "../components/Panel.js"
import { UserField } from "../components/UserField.js"
import { useApiKey } from "../lib/apiKeyContext.js"
import { api } from "../lib/client.js"
import { orNone } from "../lib/format.js"
import { navigate } from "../lib/router.js"
import { useLoad } from "../lib/useAsync.js"
import { memoryPath } from "./memories/paths.js"

const PAGE_SIZE = 20

const listPath = (user: string, offset: number) =>
  `/memories?user=${encodeURIComponent(user)}${offset > 0 ? `&offset=${offset}` : ""}`

/** A user's current memories, a page at a time; the user and the page live in the URL. */
export const MemoriesPage = ({ params }: { readonly params: URLSearchParams }) => {
  const apiKey = useApiKey()
  const user = params.get("user") ?? ""
  const offset = Math.max(0, Math.floor(Number(params.get("offset") ?? "0")) || 0)
  const [draft, setDraft] = useState(user)
  // Synchronous with the render, so a value typed right after the page appears is never reset.
  useLayoutEffect(() => setDraft(user), [user])
  const { state } = useLoad(
    () => (user === "" ? Promise.resolve(null) : api.listMemories({ user_id: user, offset, limit: PAGE_SIZE })),
    [apiKey, user, offset]
  )
  return (
    <>
      <PageTitle title="Memories" intro="A user's current memories, oldest first. Open one for its versions, provenance and events." />
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault()
          if (draft.trim() !== "") navigate(listPath(draft.trim(), 0))
        }}
      >
        <UserField value={draft} onValue={setDraft} />
        <button type="submit" class="button button-primary">Show memories</button>
      </form>
      {user === ""
        ? <EmptyState>Choose a user to list their memories.</EmptyState>
        : (
          <Panel title={`Memories of ${user}`}>
            <Loaded state={state} what="memories">
              {(list) =>
                list === null || list.memories.length === 0
                  ? <EmptyState>{offset > 0 ? "No memories on this page." : `${user} has no current memories.`}</EmptyState>
                  : (
                    <>
                      <div class="table-wrap">
                        <table>
                          <thead>
                            <tr>
                              <th scope="col">Memory</th>
                              <th scope="col">Kind</th>
                              <th scope="col">Status</th>
                              <th scope="col">Occurred</th>
                              <th scope="col" class="num">Confidence</th>
                            </tr>
                          </thead>
                          <tbody>
                            {list.memories.map((memory) => (
                              <tr key={memory.id}>
                                <td class="wide"><Link to={memoryPath(memory.id, user)}>{memory.content || memory.id}</Link></td>
                                <td>{orNone(memory.kind)}</td>
                                <td><StatusBadge status={memory.status} /></td>
                                <td>{orNone(memory.occurred_at)}</td>
                                <td class="num">{memory.confidence === null ? orNone(null) : memory.confidence.toFixed(2)}</td>
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </div>
                      <Pager
                        offset={offset}
                        limit={PAGE_SIZE}
                        total={list.total}
                        shown={list.memories.length}
                        onPage={(next) => navigate(listPath(user, next))}
                      />
                    </>
                  )}
            </Loaded>
          </Panel>
        )}
    </>
  )
}
