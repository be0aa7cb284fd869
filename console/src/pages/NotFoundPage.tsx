import { Link } from "../components/Link.js"
import { PageTitle } from "../components/PageTitle.js"

export const NotFoundPage = ({ path }: { readonly path: string }) => (
  <>
    <PageTitle title="No such page" intro={`The console has no page at ${path}.`} />
    <p><Link to="/">Go to the overview</Link></p>
  </>
)
