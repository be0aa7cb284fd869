import { Link } from "./Link.js"

const PAGES: ReadonlyArray<readonly [path: string, label: string]> = [
  ["/", "Overview"],
  ["/memories", "Memories"],
  ["/playground", "Search & context"],
  ["/jobs", "Jobs"],
  ["/ops", "Ops"]
]

/** The page a path belongs to: a memory's own page is under Memories. */
const sectionOf = (path: string) => (path === "/" ? "/" : `/${path.split("/")[1] ?? ""}`)

export const Nav = ({ path }: { readonly path: string }) => (
  <nav class="nav" aria-label="Console">
    <ul>
      {PAGES.map(([to, label]) => (
        <li key={to}>
          <Link to={to} current={sectionOf(path) === to}>{label}</Link>
        </li>
      ))}
    </ul>
  </nav>
)
