// The portal's only script: conveniences on top of pages that work without it (docs/portal.md).
// - a facet checkbox applies at once (the "Apply filters" button stays for readers without JavaScript),
//   and keyboard focus returns to the checkbox after the page reloads; on a narrow screen the facets
//   start folded so the results come first;
// - "Copy configuration" puts an MCP client snippet on the clipboard and says so to screen readers;
// - "/" moves focus to the search or filter field.
'use strict';
(function () {
  document.documentElement.classList.add('js');
  var FOCUS_KEY = 'portal:focus';

  document.addEventListener('change', function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement) || box.type !== 'checkbox' || !box.form) return;
    try {
      sessionStorage.setItem(FOCUS_KEY, box.id);
    } catch {
      /* storage off: focus starts at the top, as without the script */
    }
    if (box.form.requestSubmit) box.form.requestSubmit();
    else box.form.submit();
  });

  function restoreFocus() {
    var id = null;
    try {
      id = sessionStorage.getItem(FOCUS_KEY);
      sessionStorage.removeItem(FOCUS_KEY);
    } catch {
      return false;
    }
    var target = id && document.getElementById(id);
    if (target) target.focus();
    return Boolean(target);
  }

  function foldFacetsOnNarrowScreens(keepOpen) {
    var toggle = document.querySelector('details.facets-toggle');
    if (toggle && !keepOpen && window.matchMedia('(max-width: 47.99rem)').matches) toggle.open = false;
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.style.position = 'fixed';
      area.style.opacity = '0';
      document.body.appendChild(area);
      area.select();
      var ok = document.execCommand('copy');
      document.body.removeChild(area);
      if (ok) resolve();
      else reject(new Error('copy refused'));
    });
  }

  function setUpCopyButtons() {
    document.querySelectorAll('button[data-copy]').forEach(function (button) {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var status = button.parentElement && button.parentElement.querySelector('.copy-status');
      if (!source) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        copyText(source.textContent).then(
          function () {
            if (status) status.textContent = 'Copied to the clipboard.';
          },
          function () {
            if (status) status.textContent = 'Could not copy: select the text and copy it by hand.';
          },
        );
      });
    });
  }

  document.addEventListener('keydown', function (event) {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    var active = document.activeElement;
    if (active && (active.tagName === 'INPUT' || active.tagName === 'TEXTAREA' || active.tagName === 'SELECT' || active.isContentEditable))
      return;
    var field = document.getElementById('q') || document.getElementById('filter');
    if (!field) return;
    event.preventDefault();
    field.focus();
    field.select();
  });

  function start() {
    setUpCopyButtons();
    foldFacetsOnNarrowScreens(restoreFocus());
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
