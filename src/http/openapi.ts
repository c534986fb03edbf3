// The ARD OpenAPI document (openapi/ard.openapi.yaml) drives routing and request validation.
// openapi-backend validates with draft-07 Ajv by default, which silently ignores 2020-12 keywords;
// this swaps in Ajv2020 with formats (../shared/notes/dependencies.md).
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import OpenAPIBackend, { type Document } from 'openapi-backend';
import { OPENAPI_DIR } from '../catalog/catalog-validator';

export const OPENAPI_PATH = path.join(OPENAPI_DIR, 'ard.openapi.yaml');

export function createOpenApiBackend(): OpenAPIBackend<Document> {
  return new OpenAPIBackend({
    definition: OPENAPI_PATH,
    strict: false,
    validate: true,
    // Quick: no check of the document against the OpenAPI meta-schema at every start (test/unit/openapi-document
    // does it) and each operation's request validator compiled at its first request, not all of them (with
    // response validators never used) before the first: about a third of a start's CPU time.
    quick: true,
    customizeAjv: (_original, ajvOpts) => {
      const ajv = new Ajv2020({ ...ajvOpts, strict: false, allErrors: true, validateFormats: true });
      addFormats(ajv);
      return ajv as never;
    },
  });
}
