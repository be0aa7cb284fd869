import { useLayoutEffect, useRef, useState } from "preact/hooks"
import { KeyForm } from "./components/KeyForm.js"
import { Nav } from "./components/Nav.js"
import { forgetApiKey, readApiKey, saveApiKey } from "./lib/apiKey.js"
import { ApiKeyContext } from "./lib/apiKeyContext.js"
import { api } from "./lib/client.js"
import { type Location, useLocation } from "./lib/router.js"
import { useLoad } from "./lib/useAsync.js"
import { JobsPage } from "./pages/JobsPage.js"
import { MemoriesPage } from "./pages/MemoriesPage.js"
import { MemoryPage } from "./pages/MemoryPage.js"
import { NotFoundPage } from "./pages/NotFoundPage.js"
import { OpsPage } from "./pages/OpsPage.js"
import { OverviewPage } from "./pages/OverviewPage.js"
import { PlaygroundPage } from "./pages/PlaygroundPage.js"

const MEMORY_PAGE = /^\/memories\/([^/]+)$/

const decode = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

const page = ({ path, params }: Location) => {
  if (path === "/") return <OverviewPage />
  if (path === "/memories") return <MemoriesPage params={params} />
  const memory = MEMORY_PAGE.exec(path)
  if (memory?.[1] !== undefined) return <MemoryPage id={decode(memory[1])} params={params} />
  if (path === "/playground") return <PlaygroundPage />
  if (path === "/jobs") return <JobsPage params={params} />
  if (path === "/ops") return <OpsPage />
  return <NotFoundPage path={path} />
}

export const App = () => {
  const [apiKey, setApiKey] = useState(readApiKey)
  const location = useLocation()
  const main = useRef<HTMLElement>(null)
  const navigated = useRef(false)
  // With authentication off the service needs no key, and the console stops asking for one.
  const health = useLoad(() => api.health(), [])
  const authOff = health.state.status === "ok" && health.state.data.auth === "disabled"

  // After following a link, focus moves to the new page, as a full page load would move it.
  // A layout effect moves it in the same commit that renders the page, never a frame later.
  useLayoutEffect(() => {
    if (navigated.current) main.current?.focus()
    navigated.current = true
  }, [location.path])

  const onKey = (key: string | null) => {
    if (key === null) forgetApiKey()
    else saveApiKey(key)
    setApiKey(key)
  }

  return (
    <ApiKeyContext.Provider value={apiKey}>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="topbar">
        <p class="brand">Memory service</p>
        <Nav path={location.path} />
        <KeyForm apiKey={apiKey} onKey={onKey} />
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {apiKey === null && !authOff
          ? <p class="notice notice-info">Enter the service's API key above: every call the console makes sends it. It is kept in this tab's session storage only.</p>
          : null}
        {page(location)}
      </main>
    </ApiKeyContext.Provider>
  )
}
