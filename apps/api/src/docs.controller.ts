import { Controller, Get, Header } from '@nestjs/common';
import { Public } from './auth/actor.js';
import { openApiDocument } from './openapi.js';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>StarPO Studio API</title>
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/init.js"></script></body></html>`;

/** OpenAPI document built from the shared zod contracts, and Swagger UI to browse it. */
@Public()
@Controller('api')
export class DocsController {
  private readonly doc = openApiDocument();

  @Get('openapi.json')
  openapi(): Record<string, unknown> {
    return this.doc;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  /** A file rather than an inline script, so the page works under the default Content-Security-Policy. */
  @Get('docs/init.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  init(): string {
    return `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#ui', withCredentials: true });`;
  }
}
