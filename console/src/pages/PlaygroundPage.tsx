import { useState } from "preact/hooks"
import { InputField } from "../components/InputField.js"
import { PageTitle } from "../components/PageTitle.js"
import { UserField } from "../components/UserField.js"
import { api } from "../lib/client.js"
import { useAction } from "../lib/useAsync.js"
import { ContextResult } from "./playground/ContextResult.js"
import { SearchResults } from "./playground/SearchResults.js"
import { timed } from "./playground/timed.js"

/** Search and context side by side, for one query: neither calls an LLM. */
export const PlaygroundPage = () => {
  const [user, setUser] = useState("")
  const [query, setQuery] = useState("")
  const [topK, setTopK] = useState("10")
  const [budget, setBudget] = useState("2000")
  const [asked, setAsked] = useState("")
  const search = useAction((request: { user_id: string; query: string; top_k: number }) => timed(() => api.search(request)))
  const context = useAction((request: { user_id: string; query: string; token_budget: number }) => timed(() => api.context(request)))
  return (
    <>
      <PageTitle title="Search & context" intro="Try a query as an agent would send it: ranked hits, and the context block built from them." />
      <form
        class="toolbar"
        onSubmit={(event) => {
          event.preventDefault()
          setAsked(user)
          void search.run({ user_id: user, query, top_k: Number(topK) })
          void context.run({ user_id: user, query, token_budget: Number(budget) })
        }}
      >
        <UserField value={user} onValue={setUser} />
        <InputField label="Query" value={query} onValue={setQuery} required placeholder="What does the user like?" />
        <InputField label="Top k" type="number" value={topK} onValue={setTopK} min={1} max={100} required />
        <InputField label="Token budget" type="number" value={budget} onValue={setBudget} min={100} max={32000} required />
        <button type="submit" class="button button-primary">Run</button>
      </form>
      <div class="columns">
        <div class="column">
          <SearchResults state={search.state} user={asked} />
        </div>
        <div class="column">
          <ContextResult state={context.state} />
        </div>
      </div>
    </>
  )
}
