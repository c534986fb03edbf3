// Starts Swagger UI (swagger-ui-dist, served from this registry) on the OpenAPI document of the page's
// #api-reference element. The validator badge is off: it would send the document to another site.
'use strict';
(function () {
  function start() {
    var root = document.getElementById('api-reference');
    if (!root || typeof window.SwaggerUIBundle !== 'function') return;
    window.SwaggerUIBundle({
      url: root.getAttribute('data-spec'),
      domNode: root,
      deepLinking: true,
      validatorUrl: null,
      defaultModelsExpandDepth: 0,
      docExpansion: 'list',
      tryItOutEnabled: false,
    });
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
