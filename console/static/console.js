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
// Copy buttons (secrets shown once): hidden without script.
(function () {
  'use strict';
  document.querySelectorAll('button[data-copy]').forEach(function (b) {
    var src = document.getElementById(b.getAttribute('data-copy'));
    if (!src || !navigator.clipboard) return;
    b.hidden = false;
    b.addEventListener('click', function () {
      navigator.clipboard.writeText(src.textContent.trim()).then(function () { b.textContent = 'Copied'; });
    });
  });
})();
// Watch-list upload: the files go up with a progress bar (XMLHttpRequest),
// then the browser follows to the import's page. Without script the form
// posts as usual. A page that comes back with errors replaces <main>.
(function () {
  'use strict';
  function mib(n) { return (n / 1048576).toFixed(1); }
  function bind() {
    var form = document.getElementById('list-import-form');
    if (!form || !window.FormData || !window.XMLHttpRequest || !window.DOMParser) return;
    var input = form.querySelector('input[type=file]');
    var err = document.getElementById('li-file-err');
    form.addEventListener('submit', function (e) {
      var max = Number(form.getAttribute('data-max'));
      var total = 0;
      for (var i = 0; i < input.files.length; i++) total += input.files[i].size;
      e.preventDefault();
      // A new try: the last one's errors no longer apply.
      var old = document.getElementById('form-error');
      if (old) old.hidden = true;
      err.hidden = true;
      input.removeAttribute('aria-invalid');
      if (max >= 0 && total > max) {
        // Saves sending hundreds of megabytes the server would refuse.
        err.textContent = 'The files are ' + mib(total) + ' MiB together, over the upload limit of ' +
          form.getAttribute('data-max-mib') + ' MiB. Import bigger files with kycd lists import on the server.';
        err.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.focus();
        return;
      }
      var box = document.getElementById('upload-progress');
      var bar = document.getElementById('upload-bar');
      var text = document.getElementById('upload-text');
      var button = form.querySelector('button[type=submit]');
      box.hidden = false;
      button.disabled = true;
      var xhr = new XMLHttpRequest();
      xhr.open('POST', form.action);
      xhr.upload.onprogress = function (ev) {
        if (!ev.lengthComputable) return;
        bar.max = ev.total;
        bar.value = ev.loaded;
        text.textContent = mib(ev.loaded) + ' of ' + mib(ev.total) + ' MiB sent';
      };
      xhr.upload.onload = function () { text.textContent = 'Sent; starting the import…'; };
      xhr.onload = function () {
        if (xhr.status === 200) { // the redirect was followed: the import's page
          window.location.assign(xhr.responseURL);
          return;
        }
        var doc = new DOMParser().parseFromString(xhr.responseText, 'text/html');
        var main = doc.querySelector('main');
        if (!main) { fail('The server answered ' + xhr.status + '.'); return; }
        document.querySelector('main').replaceWith(main);
        bind();
        var first = document.querySelector('#form-error, [aria-invalid=true]');
        if (first) { if (!first.hasAttribute('tabindex') && first.id === 'form-error') first.setAttribute('tabindex', '-1'); first.focus(); }
      };
      function fail(msg) {
        button.disabled = false;
        box.hidden = true;
        err.textContent = msg + ' Nothing was imported.';
        err.hidden = false;
        input.focus();
      }
      xhr.onerror = function () { fail('The upload failed: the connection was closed (over the size limit, or the network).'); };
      xhr.send(new FormData(form));
    });
  }
  bind();
})();
// An import's page: its state is polled instead of reloading the page; the
// live region says how it ended.
(function () {
  'use strict';
  var box = document.getElementById('import-progress');
  if (!box || !window.fetch) return;
  var url = box.getAttribute('data-status');
  var phase = document.getElementById('import-phase');
  var bar = document.getElementById('import-bar');
  var detail = document.getElementById('import-detail');
  var result = document.getElementById('import-result');
  function update(s) {
    phase.textContent = s.phaseText;
    detail.textContent = s.detail;
    if (s.percent >= 0) { bar.value = s.percent; bar.textContent = s.percent + '%'; } else { bar.removeAttribute('value'); }
    if (!s.done) { setTimeout(poll, 1000); return; }
    box.hidden = true;
    result.className = (s.state === 'imported' || s.state === 'unchanged') ? 'notice' : 'error';
    var p = document.createElement('p');
    var strong = document.createElement('strong');
    strong.textContent = s.summary;
    p.appendChild(strong);
    result.appendChild(p);
    result.setAttribute('data-state', s.state);
  }
  function poll() {
    fetch(url, {headers: {Accept: 'application/json'}, credentials: 'same-origin'})
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(update)
      .catch(function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 1000);
})();
// A batch screening's page while it runs: reloaded every 2 s until the
// batch is completed (without JavaScript the layout's refresh does it).
(function () {
  'use strict';
  var box = document.getElementById('batch-progress');
  if (box && box.hasAttribute('data-running')) setTimeout(function () { location.reload(); }, 2000);
})();
