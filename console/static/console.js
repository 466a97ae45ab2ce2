// kycd back office: progressive enhancement only. Every page works
// without this file; with it, a document image zooms in place instead of
// opening on its own.
(function () {
  'use strict';
  document.querySelectorAll('figure[data-zoom] a').forEach(function (a) {
    a.addEventListener('click', function (e) {
      if (e.ctrlKey || e.metaKey || e.shiftKey) return; // new tab as usual
      e.preventDefault();
      var fig = a.closest('figure');
      var on = fig.classList.toggle('zoomed');
      a.setAttribute('aria-expanded', on ? 'true' : 'false');
    });
    a.setAttribute('aria-expanded', 'false');
  });
})();
