/** Where the API's documentation is served: the Swagger UI page, and the OpenAPI document it shows. */
export const DOCS_PATH = "/docs"
export const OPENAPI_PATH = "/openapi.json"
