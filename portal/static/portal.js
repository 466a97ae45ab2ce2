// Applicant portal: consent, document choice, photos (camera or file),
// document details, review and submission, all on one page. Plain JavaScript, no framework:
// the page is small and must work on old phones. The server does every
// check that matters; this script only guides the applicant. Every word it
// shows comes from the page's message catalog (the JSON block
// #portal-messages), in the page's language.
(function () {
  'use strict';

  var app = document.getElementById('app');
  var camera = window.portalCamera; // camera.js
  var liveness = window.portalLiveness; // liveness.js
  var block = document.getElementById('portal-messages');
  if (!app || !camera || !liveness || !block) {
    return;
  }
  var MESSAGES = JSON.parse(block.textContent);
  var LANG = app.dataset.lang || 'en';
  var plurals = window.Intl && Intl.PluralRules ? new Intl.PluralRules(LANG) : null;

  // t returns the message key with its {placeholders} filled from args;
  // a plural message takes its form for args.n.
  function t(key, args) {
    var m = MESSAGES[key];
    if (m === undefined) return key;
    if (typeof m === 'object') {
      var form = plurals && args && typeof args.n === 'number' ? plurals.select(args.n) : 'other';
      m = m[form] || m.other;
    }
    return m.replace(/\{(\w+)\}/g, function (all, name) {
      return args && args[name] !== undefined ? String(args[name]) : all;
    });
  }

  // longDate writes 2031-04-30 as the language writes a date in full (30
  // April 2031, 30. April 2031, 2031年4月30日), which no reader can take for
  // 4 November; the server writes dates with the same catalog entries.
  function longDate(iso) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
    if (!m) return iso;
    return t('date.long', { day: Number(m[3]), month: t('date.month.' + Number(m[2])), year: m[1] });
  }
  var MAX_BYTES = 10 * 1024 * 1024; // the server's limit, checked here to spare a slow upload
  var REDIRECT_DELAY = 5; // seconds on the done step before going back to the organization

  var cfg = {
    capturesUrl: app.dataset.capturesUrl,
    documentUrl: app.dataset.documentUrl,
    submitUrl: app.dataset.submitUrl,
    livenessUrl: app.dataset.livenessUrl,
    documentSessionUrl: app.dataset.documentSessionUrl,
    pageUrl: app.dataset.pageUrl,
    selfie: app.dataset.workflow === 'standard',
    redirectUrl: app.dataset.redirectUrl || '',
    // A resubmission's link opens one photo (front, back or selfie) of
    // the document confirmed the first time; cameraOnly: the face camera
    // check, which an upload cannot replace. The server enforces both.
    redo: app.dataset.redoSlot || '',
    cameraOnly: app.dataset.redoCameraOnly === 'true'
  };

  var state = {
    step: 'welcome',
    docType: '',
    docLabel: '',
    hasBack: false,
    hasMrz: false,
    country: '',
    countryName: '',
    slot: '', // the photo being taken: front, back or selfie
    shots: {}, // slot -> {url, method}
    details: null, // the document details as the server stored them
    review: false, // a retake returns to the review step
    stream: null,
    preferUpload: false, // the applicant chose files, or the camera cannot be used
    pending: null, // the last upload, kept for "Try again" after a network error
    docSession: null, // the open document camera session {id, nonce, until}
    read: null, // {captureId, mrz}: the zone the server read from a document photo
    unreadable: 0, // photos of the zone's side the server could not read
    checking: false // the selfie's camera check is running
  };

  // MAX_UNREADABLE photos of the zone's side that the server cannot read
  // and the applicant types the details instead (the request then goes to
  // a person: typed details are never enough to approve).
  var MAX_UNREADABLE = 3;

  function $(id) {
    return document.getElementById(id);
  }

  // Steps and progress.

  function stages() {
    if (cfg.redo) return 3;
    return cfg.selfie ? 6 : 5;
  }

  function stageOf(step) {
    if (step === 'welcome' || step === 'redo') return 1;
    if (cfg.redo) return step === 'capture' ? 2 : 3;
    if (step === 'document') return 2;
    if (step === 'capture') return state.slot === 'selfie' ? 5 : 3;
    if (step === 'details' || step === 'read') return 4;
    return stages();
  }

  function show(step, quiet) {
    if (state.step === 'capture' && step !== 'capture') {
      stopCamera();
    }
    state.step = step;
    var sections = app.querySelectorAll('.step');
    for (var i = 0; i < sections.length; i++) {
      sections[i].hidden = sections[i].id !== 'step-' + step;
    }
    var section = $('step-' + step);
    var progress = section.querySelector('.progress');
    if (progress) {
      progress.textContent = t('progress', { n: stageOf(step), total: stages() });
    }
    if (quiet) return;
    window.scrollTo(0, 0);
    // Move keyboard and screen-reader users to the new step's heading.
    section.querySelector('h1').focus();
  }

  // sequence is what follows the document choice, in order: the
  // document's photos, its details, the selfie. slots are its photos.
  function sequence() {
    if (cfg.redo) return [cfg.redo];
    var list = ['front'];
    if (state.hasBack) list.push('back');
    list.push('details');
    if (cfg.selfie) list.push('selfie');
    return list;
  }

  function slots() {
    return sequence().filter(function (s) { return s !== 'details'; });
  }

  function complete(item) {
    return item === 'details' ? !!state.details : !!state.shots[item];
  }

  // slotText is the title, hint and caption of a photo. Each side of each
  // document has its own message: languages decline and gender the
  // document's name, so it is never pieced together here.
  function slotText(slot) {
    if (slot === 'selfie') {
      return { title: t('js.selfie_title'), hint: t('js.selfie_hint'), caption: t('js.selfie_caption') };
    }
    if (state.docType === 'passport') {
      return { title: t('js.passport_title'), hint: t('js.passport_hint'), caption: t('js.passport_caption') };
    }
    var title = t('js.' + slot + '.' + state.docType);
    var hint = slot === 'back' && hasBarcode() ? t('js.barcode_side_hint') : t('js.card_hint');
    return { title: title, hint: hint, caption: title };
  }

  // Welcome and document steps.

  function fieldError(id, message, focus) {
    var el = $(id);
    el.textContent = message;
    el.hidden = !message;
    if (message && focus) focus.focus();
  }

  function onConsent() {
    var box = $('consent');
    if (!box.checked) {
      fieldError('consent-error', t('js.consent_required'), box);
      return;
    }
    fieldError('consent-error', '');
    show('document');
  }

  function onDocument() {
    var checked = app.querySelector('input[name="documentType"]:checked');
    var country = $('country').value;
    fieldError('doctype-error', checked ? '' : t('js.document_required'));
    fieldError('country-error', country ? '' : t('js.country_required'));
    if (!checked) {
      app.querySelector('input[name="documentType"]').focus();
      return;
    }
    if (!country) {
      $('country').focus();
      return;
    }
    if (checked.value !== state.docType) {
      // Photos of another document cannot stay.
      forget('front');
      forget('back');
      state.read = null;
      state.unreadable = 0;
    }
    if (checked.value !== state.docType || country !== state.country) {
      state.details = null; // they name the document and its country
    }
    state.docType = checked.value;
    state.docLabel = checked.dataset.label;
    state.hasBack = checked.dataset.hasBack === 'true';
    state.hasMrz = checked.dataset.hasMrz === 'true';
    state.country = country;
    state.countryName = $('country').options[$('country').selectedIndex].textContent;
    if (!state.hasBack) forget('back');
    startSlot(nextSlot(null));
  }

  function forget(slot) {
    var shot = state.shots[slot];
    if (shot) {
      URL.revokeObjectURL(shot.url);
      delete state.shots[slot];
    }
  }

  // nextSlot is what comes after current in the sequence: the next item,
  // or after the review only the next one still missing.
  function nextSlot(current) {
    var list = sequence();
    var i = current ? list.indexOf(current) + 1 : 0;
    for (; i < list.length; i++) {
      if (!complete(list[i]) || !state.review) return list[i];
    }
    return '';
  }

  function onBack() {
    if (state.step === 'document') {
      show('welcome');
      return;
    }
    if (state.step === 'capture' || state.step === 'details') {
      if (state.review) {
        showReview();
        return;
      }
      var list = sequence();
      var i = list.indexOf(state.step === 'details' ? 'details' : state.slot);
      if (i > 0) {
        startSlot(list[i - 1]);
      } else {
        show(cfg.redo ? 'redo' : 'document');
      }
    }
  }

  // The capture step.

  function startSlot(slot) {
    if (!slot) {
      showReview();
      return;
    }
    if (slot === 'details') {
      if (state.read) {
        showRead();
      } else {
        showDetails();
      }
      return;
    }
    state.slot = slot;
    state.pending = null;
    var text = slotText(slot);
    $('capture-title').textContent = text.title;
    $('capture-hint').textContent = text.hint;
    $('guide').className = 'guide ' + (slot === 'selfie' ? 'face' : state.docType === 'passport' ? 'passport' : 'card');
    // Where the machine-readable lines go, on the side that has them.
    $('guide').classList.toggle('mrz', state.hasMrz && slot === zoneSide());
    $('camera').classList.toggle('mirror', slot === 'selfie');
    $('file').setAttribute('capture', slot === 'selfie' ? 'user' : 'environment');
    captureError('');
    status('');
    $('retry').hidden = true;
    $('retry').textContent = t('capture.retry');
    instruction('', '', '', 0, 0);
    show('capture');
    if (state.preferUpload || !camera.supported()) {
      if (!camera.supported()) {
        captureError(t('js.no_camera_support'));
      }
      uploadMode();
      return;
    }
    startCamera(slot === 'selfie' ? 'user' : 'environment');
  }

  function uploadMode() {
    if (cfg.cameraOnly) {
      // The camera check cannot become an upload: say so, and offer the
      // camera again.
      stopCamera();
      $('camera').hidden = true;
      $('shoot').hidden = true;
      $('choose-file').hidden = true;
      $('use-camera').hidden = !camera.supported();
      captureError(t('js.redo.camera_only'));
      return;
    }
    stopCamera();
    $('camera').hidden = true;
    $('shoot').hidden = true;
    $('use-camera').hidden = !camera.supported();
    $('choose-file').textContent = t('js.choose_file');
    $('choose-file').className = 'primary';
  }

  function cameraMode() {
    $('choose-file').hidden = cfg.cameraOnly;
    $('camera').hidden = false;
    $('shoot').hidden = false;
    $('shoot').textContent = state.slot === 'selfie' ? t('js.liveness.start') : t('capture.shoot');
    $('use-camera').hidden = true;
    $('choose-file').textContent = t('capture.upload_instead');
    $('choose-file').className = 'secondary';
  }

  function startCamera(facing) {
    stopCamera();
    status(t('js.camera_starting'));
    var slot = state.slot;
    var video = $('video');
    camera.start(video, facing).then(function (stream) {
      if (state.step !== 'capture' || state.slot !== slot) {
        camera.stop(video, stream); // the applicant moved on while it started
        return;
      }
      state.stream = stream;
      cameraMode();
      if (video.videoWidth && video.videoHeight) {
        $('camera').style.aspectRatio = video.videoWidth + ' / ' + video.videoHeight;
      }
      status(t('js.camera_ready'));
      $('shoot').focus();
    }, function (err) {
      if (state.step !== 'capture' || state.slot !== slot) return;
      captureError(t(camera.message(err)));
      status('');
      uploadMode();
    });
  }

  function stopCamera() {
    camera.stop($('video'), state.stream);
    state.stream = null;
  }

  function onShoot() {
    var slot = state.slot;
    if (slot === 'selfie') {
      startCheck();
      return;
    }
    camera.frame($('video'), $('canvas')).then(function (blob) {
      // A document photo taken with the camera goes into a document
      // camera session the server opened: only then is it a camera
      // capture (the server checks the nonce and the deadline).
      documentSession().then(function (sess) {
        upload({ blob: blob, method: 'camera', name: slot + '.jpg', session: sess });
      }, function () {
        upload({ blob: blob, method: 'camera', name: slot + '.jpg' });
      });
    }, function (err) {
      captureError(t(err.message));
    });
  }

  // documentSession returns the open document camera session, opening a
  // new one when there is none or it ends within 20 seconds.
  function documentSession() {
    var s = state.docSession;
    if (s && s.until - Date.now() > 20000) return Promise.resolve(s);
    return send(cfg.documentSessionUrl, null).then(function (res) {
      if (!res.ok || !res.body) throw new Error(res.message);
      state.docSession = { id: res.body.id, nonce: res.body.nonce, until: Date.now() + res.body.seconds * 1000 };
      return state.docSession;
    });
  }

  function onChooseFile() {
    $('file').click();
  }

  function onFile() {
    var input = $('file');
    var file = input.files && input.files[0];
    input.value = ''; // choosing the same file again must fire change again
    if (!file) return;
    if (file.size > MAX_BYTES) {
      captureError(t('js.file_too_large'));
      return;
    }
    upload({ blob: file, method: 'upload', name: file.name || 'photo' });
  }

  function onUseCamera() {
    state.preferUpload = false;
    captureError('');
    startCamera(state.slot === 'selfie' ? 'user' : 'environment');
  }

  function busy(on) {
    var buttons = app.querySelectorAll('button');
    for (var i = 0; i < buttons.length; i++) {
      buttons[i].disabled = on;
    }
  }

  function upload(u) {
    var slot = state.slot;
    var form = new FormData();
    if (slot === 'selfie') {
      form.append('kind', 'selfie');
    } else {
      form.append('kind', 'document');
      form.append('side', slot);
      form.append('documentType', state.docType);
      form.append('country', state.country);
    }
    form.append('method', u.method);
    if (u.session) {
      form.append('sessionId', u.session.id);
      form.append('nonce', u.session.nonce);
    }
    form.append('image', u.blob, u.name);
    state.pending = u;
    captureError('');
    $('retry').hidden = true;
    status(t('js.sending_photo'));
    busy(true);
    send(cfg.capturesUrl, form).then(function (res) {
      busy(false);
      if (res.ok) {
        state.pending = null;
        forget(slot);
        state.shots[slot] = { url: URL.createObjectURL(u.blob), method: u.method };
        status(t('js.photo_saved'));
        if (u.method === 'upload') state.preferUpload = true;
        if (!readZone(slot, res.body)) return; // retake asked for
        startSlot(nextSlot(slot));
        return;
      }
      if (leaveIfGone(res)) return;
      if (u.session) state.docSession = null; // ended or refused: the retake opens a new one
      status('');
      captureError(res.message);
    }, function () {
      busy(false);
      status('');
      captureError(t('js.offline'));
      $('retry').hidden = false;
      $('retry').focus();
    });
  }

  // hasBarcode: the chosen document carries the AAMVA licence barcode on
  // its back (driving licences and identity cards of the US and Canada),
  // which the server reads at upload as it reads a zone.
  function hasBarcode() {
    return (state.docType === 'driving_licence' || state.docType === 'id_card') &&
      (state.country === 'US' || state.country === 'CA');
  }

  // zoneSide is the photo that shows the machine-readable zone: the photo
  // page of a passport, the back of a card that has one.
  function zoneSide() {
    return state.hasBack ? 'back' : 'front';
  }

  // readZone takes what the server read from a document photo. It returns
  // false when it asked for a retake: the zone's side was not read, and
  // fewer than MAX_UNREADABLE tries were made.
  function readZone(slot, body) {
    // A resubmitted photo is not read back for confirmation: the details
    // were confirmed the first time, and the engine reads the image.
    if (!body || slot === 'selfie' || cfg.redo) return true;
    var mrz = body.mrz;
    var barcode = body.barcode; // only for the back of a licence that has one
    if (barcode && barcode.status === 'read') {
      state.read = { captureId: body.id, mrz: barcode, barcode: true };
      state.details = null; // to be confirmed again
      return true;
    }
    if (mrz && (mrz.status === 'read' || mrz.status === 'invalid')) {
      state.read = { captureId: body.id, mrz: mrz };
      state.details = null; // to be confirmed again
      return true;
    }
    var expected = barcode ? slot === 'back' : mrz && state.hasMrz && slot === zoneSide();
    if (!expected || state.read) return true;
    state.unreadable++;
    if (state.unreadable >= MAX_UNREADABLE) {
      // Typed details from here on.
      return true;
    }
    forget(slot);
    status('');
    startSlot(slot);
    var hint = barcode ? t('js.barcode_hint.' + (barcode.hint || 'not_found')) : t('js.mrz_hint.' + (mrz.hint || 'unclear'));
    captureError(hint + ' ' + t('js.retake_try', { n: state.unreadable + 1, total: MAX_UNREADABLE }));
    return false;
  }

  // The confirmation of what was read.

  var readFacts = [
    ['surname', 'js.fact_surname'],
    ['givenNames', 'js.fact_given_names'],
    ['birthDate', 'js.fact_birth'],
    ['documentNumber', 'js.fact_number'],
    ['expiryDate', 'js.fact_expiry']
  ];

  function showRead() {
    state.slot = '';
    var m = state.read.mrz;
    var dl = $('read-facts');
    dl.textContent = '';
    readFacts.forEach(function (f) {
      var dt = document.createElement('dt');
      dt.textContent = t(f[1]);
      var dd = document.createElement('dd');
      dd.textContent = /Date$/.test(f[0]) ? longDate(m[f[0]] || '') : (m[f[0]] || '—');
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    var warning = $('read-warning');
    warning.textContent = m.status === 'invalid' ? t('js.mrz_invalid') : '';
    warning.hidden = m.status !== 'invalid';
    $('read-intro').textContent = state.read.barcode ? t('js.read_intro_barcode') : t('read.intro');
    readError('');
    show('read');
  }

  function readError(message) {
    var el = $('read-error');
    el.textContent = message;
    el.hidden = !message;
  }

  function onReadConfirm() {
    if ($('read-confirm').disabled) return;
    var body = { documentType: state.docType, issuingCountry: state.country, captureId: state.read.captureId };
    busy(true);
    send(cfg.documentUrl, JSON.stringify(body), 'application/json').then(function (res) {
      busy(false);
      if (res.ok) {
        state.details = res.body;
        startSlot(nextSlot('details'));
        return;
      }
      if (leaveIfGone(res)) return;
      readError(res.message);
      $('read-confirm').focus();
    }, function () {
      busy(false);
      readError(t('js.offline'));
      $('read-confirm').focus();
    });
  }

  function onReadRetake() {
    state.read = null;
    state.details = null;
    startSlot(zoneSide());
  }

  function onRetry() {
    if (state.slot === 'selfie' && !state.pending) {
      startCheck();
      return;
    }
    if (state.pending) upload(state.pending);
  }

  // The selfie's camera check (liveness.js): the server's challenge over
  // the live view, then the server's verdict. A passed check is the
  // selfie; a failed one can be tried again while the server allows it,
  // or the applicant uploads a photo (which a reviewer then looks at).

  function instruction(move, text, arrow, n, total) {
    $('challenge').hidden = !move;
    $('challenge-arrow').textContent = arrow;
    $('challenge-text').textContent = text;
    $('challenge-count').textContent = move ? t('js.liveness.instruction', { n: n, total: total }) : '';
  }

  // screenLight fills the screen around the camera view with colour (''
  // ends it) and returns the colour the page shows, as #rrggbb.
  function screenLight(colour) {
    var el = $('screen-light');
    el.hidden = !colour;
    el.style.backgroundColor = colour || '';
    $('camera').classList.toggle('lit', !!colour);
    if (!colour) return '';
    var m = /rgba?\((\d+),\s*(\d+),\s*(\d+)/.exec(window.getComputedStyle(el).backgroundColor) || [];
    return '#' + [m[1], m[2], m[3]].map(function (v) { return ('0' + (+v || 0).toString(16)).slice(-2); }).join('');
  }

  function startCheck() {
    if (state.checking) return;
    state.checking = true;
    state.pending = null;
    captureError('');
    $('retry').hidden = true;
    status('');
    busy(true);
    var slot = state.slot;
    var failed = function (res) {
      var e = new Error(res.message);
      e.res = res;
      return Promise.reject(e);
    };
    // livenessUrl may end in ?lang=…: the session's id (and /step) go
    // before it.
    var sessionURL = function (id, tail) {
      var parts = cfg.livenessUrl.split('?');
      return parts[0] + '/' + encodeURIComponent(id) + tail + (parts.length > 1 ? '?' + parts.slice(1).join('?') : '');
    };
    liveness.run({
      t: t,
      video: $('video'),
      canvas: $('canvas'),
      show: instruction,
      light: screenLight,
      open: function () {
        return send(cfg.livenessUrl, null).then(function (res) { return res.ok ? res.body : failed(res); });
      },
      step: function (id, form) {
        return send(sessionURL(id, '/step'), form).then(function (res) { return res.ok ? res.body : failed(res); });
      },
      send: function (id, form) {
        status(t('js.liveness.checking'));
        return send(sessionURL(id, ''), form).then(function (res) { return res.ok ? res.body : failed(res); });
      }
    }).then(function (result) {
      state.checking = false;
      busy(false);
      instruction('', '', '', 0, 0);
      if (state.step !== 'capture' || state.slot !== slot) return;
      var v = result.verdict;
      if (v.passed) {
        var frame = result.frames[v.selfieFrame] || result.frames[0];
        forget(slot);
        state.shots[slot] = { url: URL.createObjectURL(frame.blob), method: 'camera' };
        status(t('js.liveness.passed'));
        startSlot(nextSlot(slot));
        return;
      }
      status('');
      var lines = [t('js.liveness.not_confirmed')].concat(liveness.explain(v, t));
      if (v.sessionsLeft > 0) {
        lines.push(t('js.liveness.tries_left', { n: v.sessionsLeft }));
        captureError(lines.join(' '));
        $('shoot').hidden = true; // the retry button says it
        $('retry').textContent = t('js.liveness.retry');
        $('retry').hidden = false;
        $('retry').focus();
      } else {
        lines.push(t('js.liveness.upload_instead'));
        captureError(lines.join(' '));
        uploadMode();
      }
    }, function (err) {
      state.checking = false;
      busy(false);
      instruction('', '', '', 0, 0);
      if (err.res && leaveIfGone(err.res)) return;
      status('');
      if (err.res && err.res.reason === 'too_many_sessions') {
        captureError(err.message);
        uploadMode();
        return;
      }
      captureError(err.res ? err.message : err.message === 'camera'
        ? t('js.liveness.camera_stopped')
        : t('js.offline'));
      $('shoot').hidden = true;
      $('retry').textContent = t('js.liveness.retry');
      $('retry').hidden = false;
      $('retry').focus();
    });
  }

  function captureError(message) {
    var el = $('capture-error');
    el.textContent = message;
    el.hidden = !message;
  }

  function status(message) {
    $('capture-status').textContent = message;
  }

  // send posts body (FormData, a JSON-encoded object with contentType
  // application/json, or null) and resolves with {ok, status, reason,
  // message, details, body}; it rejects only when the server could not be
  // reached.
  function send(url, body, contentType) {
    var headers = { Accept: 'application/json' };
    if (contentType) headers['Content-Type'] = contentType;
    return fetch(url, {
      method: 'POST',
      body: body,
      credentials: 'same-origin',
      headers: headers
    }).then(function (r) {
      return r.json().catch(function () { return null; }).then(function (json) {
        var e = (json && json.error) || {};
        return {
          ok: r.ok,
          status: r.status,
          reason: e.reason || '',
          details: e.details || [],
          message: e.message || t('js.server_error', { status: r.status }),
          body: json
        };
      });
    });
  }

  // leaveIfGone reloads the page when the link cannot be used any more:
  // the server then shows the page for its state (expired, cancelled,
  // submitted, unknown).
  function leaveIfGone(res) {
    if (res.status === 410 || res.status === 404) {
      stopCamera();
      window.location.replace(cfg.pageUrl);
      return true;
    }
    return false;
  }

  // The document details step.

  // detailFields are the details the applicant types, by the name the
  // server gives them in an error's details (whose messages are whole
  // sentences in the page's language).
  var detailFields = {
    documentNumber: { input: 'doc-number', error: 'doc-number-error', empty: 'js.number_empty' },
    expiryDate: { input: 'doc-expiry', error: 'doc-expiry-error', empty: 'js.expiry_empty' },
    mrz: { input: 'doc-mrz', error: 'doc-mrz-error' }
  };

  function showDetails() {
    state.slot = '';
    $('details-intro').textContent = t('js.details_for', { document: state.docLabel, country: state.countryName });
    $('mrz-field').hidden = !state.hasMrz;
    $('mrz-example-td3').hidden = state.docType !== 'passport';
    $('mrz-example-td1').hidden = state.docType === 'passport';
    clearDetailsErrors();
    show('details');
  }

  function clearDetailsErrors() {
    Object.keys(detailFields).forEach(function (name) {
      detailError(name, '');
    });
    detailsError('');
  }

  function detailError(name, message) {
    var f = detailFields[name];
    fieldError(f.error, message);
    if (message) {
      $(f.input).setAttribute('aria-invalid', 'true');
    } else {
      $(f.input).removeAttribute('aria-invalid');
    }
  }

  function detailsError(message) {
    var el = $('details-error');
    el.textContent = message;
    el.hidden = !message;
  }

  function onDetails(e) {
    e.preventDefault();
    if ($('details-continue').disabled) return; // Enter while sending
    clearDetailsErrors();
    var expiry = $('doc-expiry');
    // A half-typed date reads as "" in a date field: say what is wrong
    // rather than that it is empty.
    if (expiry.validity && expiry.validity.badInput) {
      detailError('expiryDate', t('js.expiry_incomplete'));
      expiry.focus();
      return;
    }
    var body = {
      documentType: state.docType,
      issuingCountry: state.country,
      documentNumber: $('doc-number').value.trim(),
      expiryDate: expiry.value.trim()
    };
    if (state.hasMrz) body.mrz = $('doc-mrz').value;
    busy(true);
    send(cfg.documentUrl, JSON.stringify(body), 'application/json').then(function (res) {
      busy(false);
      if (res.ok) {
        state.details = res.body;
        startSlot(nextSlot('details'));
        return;
      }
      if (leaveIfGone(res)) return;
      var first = null;
      var other = [];
      res.details.forEach(function (d) {
        var f = detailFields[d.field];
        if (f) {
          // "must be a real date" is no help for an empty date picker.
          detailError(d.field, f.empty && !$(f.input).value.trim() ? t(f.empty) : d.message);
          first = first || $(f.input);
        } else {
          other.push(d);
        }
      });
      // Anything else (the document or country of the earlier step, a
      // broken form) is said above the fields.
      detailsError([res.message].concat(other.map(function (d) {
        return d.message;
      })).join(' '));
      (first || $('step-details').querySelector('h1')).focus();
    }, function () {
      busy(false);
      detailsError(t('js.offline_press', { button: t('button.continue') }));
      $('details-continue').focus();
    });
  }

  // Review and submission.

  // detailsItem is the review's entry for the document details.
  function detailsItem() {
    var d = state.details;
    var li = document.createElement('li');
    li.className = 'details';
    var caption = document.createElement('p');
    caption.className = 'caption';
    caption.textContent = d ? t('js.details_caption') : t('js.details_not_confirmed');
    li.appendChild(caption);
    if (d) {
      var facts = [
        [t('js.fact_document'), state.docLabel + t('list.sep') + state.countryName],
        [t('js.fact_number'), d.documentNumber],
        [t('js.fact_expiry'), longDate(d.expiryDate)]
      ];
      if (d.fromDocument) {
        facts.push([t('js.fact_source'), t('js.read_from_document')]);
      } else if (state.hasMrz) {
        facts.push([t('js.fact_mrz'), d.hasMrz ? t('js.mrz_entered') : t('js.mrz_not_entered')]);
      }
      var dl = document.createElement('dl');
      dl.className = 'facts';
      facts.forEach(function (f) {
        var dt = document.createElement('dt');
        dt.textContent = f[0];
        var dd = document.createElement('dd');
        dd.textContent = f[1];
        if (f[0] === t('js.fact_number')) dd.dir = 'ltr';
        dl.appendChild(dt);
        dl.appendChild(dd);
      });
      li.appendChild(dl);
    }
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary';
    button.dataset.action = 'edit-details';
    button.textContent = d ? t('js.edit') : t('js.enter_details');
    button.setAttribute('aria-label', d ? t('js.edit_label') : t('js.enter_details'));
    li.appendChild(button);
    return li;
  }

  function showReview() {
    state.review = true;
    var list = $('review-list');
    list.textContent = '';
    sequence().forEach(function (slot) {
      if (slot === 'details') {
        list.appendChild(detailsItem());
        return;
      }
      var text = slotText(slot);
      var shot = state.shots[slot];
      var li = document.createElement('li');
      if (shot) {
        var img = document.createElement('img');
        img.src = shot.url;
        img.alt = text.caption;
        li.appendChild(img);
      }
      var caption = document.createElement('p');
      caption.className = 'caption';
      caption.textContent = shot ? text.caption : t('js.not_taken', { item: text.caption });
      li.appendChild(caption);
      var button = document.createElement('button');
      button.type = 'button';
      button.className = 'secondary';
      button.dataset.action = 'retake';
      button.dataset.slot = slot;
      button.textContent = shot ? t('js.retake') : t('js.take');
      // The visible word alone would be ambiguous in a screen reader's list
      // of buttons; the name starts with it, so voice control still works.
      button.setAttribute('aria-label', t(shot ? 'js.retake_label' : 'js.take_label', { item: text.caption }));
      li.appendChild(button);
      list.appendChild(li);
    });
    $('submit-error').hidden = true;
    show('review');
  }

  function onSubmit() {
    var missing = sequence().filter(function (s) { return !complete(s); });
    if (missing.length) {
      submitError(t('js.missing', {
        items: missing.map(function (s) {
          return s === 'details' ? t('js.details_caption') : slotText(s).caption;
        }).join(t('list.sep'))
      }));
      return;
    }
    submitError('');
    busy(true);
    $('submit').textContent = t('js.sending');
    send(cfg.submitUrl, null).then(function (res) {
      busy(false);
      $('submit').textContent = t('review.send');
      // "done" after our own submission means an earlier attempt got
      // through and only its answer was lost.
      if (res.ok || (res.status === 410 && res.reason === 'done')) {
        done(res.ok && res.body ? res.body.redirectUrl : cfg.redirectUrl);
        return;
      }
      if (leaveIfGone(res)) return;
      var names = { 'document.front': 'front', 'document.back': 'back', selfie: 'selfie' };
      res.details.forEach(function (d) {
        if (d.field === 'documentData') {
          state.details = null;
        } else {
          forget(names[d.field]);
        }
      });
      if (res.details.length) {
        showReview();
      }
      submitError(res.message);
    }, function () {
      busy(false);
      $('submit').textContent = t('review.send');
      submitError(t('js.offline_press', { button: t('review.send') }));
    });
  }

  function submitError(message) {
    var el = $('submit-error');
    el.textContent = message;
    el.hidden = !message;
  }

  function done(redirectUrl) {
    stopCamera();
    Object.keys(state.shots).forEach(forget);
    // The page may stay open on a shared device: keep no personal data.
    state.details = null;
    $('details-form').reset();
    show('done');
    if (!redirectUrl) return;
    var left = REDIRECT_DELAY;
    var note = $('redirect-note');
    if (note) note.textContent = t('done.redirect', { n: left });
    var timer = window.setInterval(function () {
      left--;
      if (note) note.textContent = t('done.redirect', { n: Math.max(left, 0) });
      if (left <= 0) {
        window.clearInterval(timer);
        window.location.assign(redirectUrl);
      }
    }, 1000);
  }

  // Wiring: one listener for every button, by its data-action.

  var actions = {
    consent: onConsent,
    document: onDocument,
    back: onBack,
    shoot: onShoot,
    retry: onRetry,
    'choose-file': onChooseFile,
    'use-camera': onUseCamera,
    'edit-details': function () { startSlot('details'); },
    'read-confirm': onReadConfirm,
    'read-retake': onReadRetake,
    submit: onSubmit,
    'redo-start': function () { startSlot(cfg.redo); }
  };

  app.addEventListener('click', function (e) {
    var button = e.target.closest('button[data-action]');
    if (!button || button.disabled) return;
    if (button.dataset.action === 'retake') {
      startSlot(button.dataset.slot);
      return;
    }
    var fn = actions[button.dataset.action];
    if (fn) fn();
  });
  $('file').addEventListener('change', onFile);
  $('details-form').addEventListener('submit', onDetails);
  // A browser without a date picker shows a text field: then the date
  // must be typed as the server reads it.
  if ($('doc-expiry').type === 'date') {
    $('date-help-picker').hidden = false;
    $('date-help-text').hidden = true;
  }
  // A field the applicant corrects loses its error; the notice goes with
  // the last one.
  $('details-form').addEventListener('input', function (e) {
    var open = false;
    Object.keys(detailFields).forEach(function (name) {
      if (detailFields[name].input === e.target.id) detailError(name, '');
      open = open || !$(detailFields[name].error).hidden;
    });
    if (!open) detailsError('');
  });
  $('consent').addEventListener('change', function () {
    if ($('consent').checked) fieldError('consent-error', '');
  });
  window.addEventListener('pagehide', stopCamera);

  if (cfg.redo) {
    state.docType = app.dataset.docType || '';
    state.docLabel = app.dataset.docLabel || '';
    state.hasBack = app.dataset.hasBack === 'true';
    state.hasMrz = app.dataset.hasMrz === 'true';
    state.country = app.dataset.country || '';
    show('redo', true);
  } else {
    show('welcome', true);
  }
})();
