import { Controller, Header } from '@nestjs/common';
import { Route } from './route.js';
import { ROUTES } from '@starpo/contracts';
import { openApiDocument } from './openapi.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>StarPO Studio API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;

/** OpenAPI document built from the shared zod contracts, and Swagger UI to browse it. */
@Controller()
export class DocsController {
  private readonly doc = openApiDocument();

  @Route(ROUTES.openapi)
  openapi(): Record<string, unknown> {
    return this.doc;
  }

  @Route(ROUTES.docs)
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  /** A file rather than an inline script, so the page works under the default Content-Security-Policy. */
  @Route(ROUTES.docsScript)
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  init(): string {
    return `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui', withCredentials: true });`;
  }
}
