// The selfie's camera check: the server draws a challenge (look straight,
// then two or three head movements) and a deadline; this script shows
// each instruction over the live camera view, takes two small frames per
// step and sends them to the server, which only then reveals the next
// movement; at the end it sends them all with the server's receipts. The server looks at
// the frames and decides; nothing here decides anything. Each step also
// comes with a screen colour, which the page shows around the camera view
// while it takes the step's frames: the server checks that the face
// reflects it. The page reports what it showed; that is evidence only. portal.js drives
// it; it knows nothing about steps or uploads besides its own.
window.portalLiveness = (function () {
  'use strict';

  // Per step: show the instruction, then take a frame at each of these
  // delays (ms). A person needs about half a second to read and start
  // moving, and the movement is held by the second frame. The screen is
  // white (NEUTRAL) for the first frame and takes the step's colour
  // right after it: the server compares the two frames of the held pose.
  var FRAME_AT = [1100, 1700];
  var NEUTRAL = '#ffffff';
  // Frames are small: the longer side at most 640 px, JPEG quality 0.85.
  var MAX_SIDE = 640;
  var QUALITY = 0.85;

  // Each movement's arrow; its words are the catalog's
  // js.liveness.move.<move>, from the applicant's point of view (the
  // preview is mirrored, so their left is the screen's left).
  var ARROWS = {
    look_straight: '●',
    turn_left: '←',
    turn_right: '→',
    look_up: '↑',
    look_down: '↓',
    move_closer: '⤢'
  };

  // The reason codes the page can explain (js.liveness.reason.<code>);
  // any other failure gets js.liveness.generic.
  var REASONS = ['LIVENESS_MOVEMENT_NOT_SEEN', 'LIVENESS_NOT_FACING_CAMERA', 'LIVENESS_NO_FACE', 'LIVENESS_MULTIPLE_FACES',
    'LIVENESS_DIFFERENT_PEOPLE', 'LIVENESS_DUPLICATE_FRAMES', 'LIVENESS_TOO_LATE', 'LIVENESS_LIGHT_MISMATCH'];

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  // grab draws the current video frame, not mirrored, at most MAX_SIDE
  // px, and resolves with a JPEG blob.
  function grab(video, canvas) {
    return new Promise(function (resolve, reject) {
      var w = video.videoWidth, h = video.videoHeight;
      if (!w || !h) {
        reject(new Error('camera'));
        return;
      }
      var k = Math.min(1, MAX_SIDE / Math.max(w, h));
      canvas.width = Math.round(w * k);
      canvas.height = Math.round(h * k);
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (blob) {
        if (blob) resolve(blob); else reject(new Error('camera'));
      }, 'image/jpeg', QUALITY);
    });
  }

  // run performs one session, paced by the server: open opens it
  // (resolving with the server's answer: id, nonce, steps and the first
  // move); after each step's frames, step(id, form) posts them and
  // resolves with the server's receipt and the next move, which is only
  // then known; at the end send(id, form) posts every frame with every
  // receipt and resolves with the verdict. show(move, text, arrow, n,
  // total) puts an instruction on screen; light(colour) fills the screen
  // around the camera view with the step's colour ('' ends it) and
  // resolves with the colour shown; t is the page's message lookup.
  // It resolves with {verdict, frames} or rejects.
  function run(o) {
    var session;
    var frames = []; // {blob, step}
    var receipts = [];
    var shown = []; // the colour shown in each step
    function doStep(i, move, colour) {
      shown[i] = o.light(NEUTRAL);
      o.show(move, o.t('js.liveness.move.' + move), ARROWS[move] || '', i + 1, session.steps);
      var started = Date.now();
      var mine = [];
      var shots = FRAME_AT.map(function (at, k) {
        return wait(at).then(function () { return grab(o.video, o.canvas); }).then(function (blob) {
          var f = { blob: blob, step: i, at: Date.now() - started };
          frames.push(f);
          mine.push(f);
          if (k === 0 && colour) shown[i] = o.light(colour);
        });
      });
      return Promise.all(shots).then(function () {
        mine.sort(function (a, b) { return a.at - b.at; });
        var form = new FormData();
        form.append('nonce', session.nonce);
        form.append('steps', mine.map(function () { return i; }).join(','));
        if (i > 0) form.append('receipt', receipts[i - 1]);
        mine.forEach(function (f, k) { form.append('frame', f.blob, 'step' + i + '-' + k + '.jpg'); });
        return o.step(session.id, form);
      }).then(function (answer) {
        receipts.push(answer.receipt);
        if (answer.move) return doStep(i + 1, answer.move, answer.light);
      });
    }
    return o.open().then(function (s) {
      session = s;
      return doStep(0, s.move, s.light);
    }).then(function () {
      o.light('');
      o.show('', '', '', 0, 0);
      frames.sort(function (a, b) { return a.step - b.step || a.at - b.at; });
      var form = new FormData();
      form.append('nonce', session.nonce);
      form.append('steps', frames.map(function (f) { return f.step; }).join(','));
      form.append('receipts', receipts.join(','));
      if (shown.every(function (c) { return /^#[0-9a-f]{6}$/.test(c); })) form.append('lights', shown.join(','));
      frames.forEach(function (f, i) { form.append('frame', f.blob, 'frame' + i + '.jpg'); });
      return o.send(session.id, form);
    }).then(function (verdict) {
      return { verdict: verdict, frames: frames };
    }, function (err) {
      o.light('');
      throw err;
    });
  }

  // explain turns a failed verdict into sentences for the applicant.
  function explain(verdict, t) {
    var seen = {};
    var out = [];
    (verdict.failed || []).forEach(function (f) {
      var key = REASONS.indexOf(f.code) >= 0 ? 'js.liveness.reason.' + f.code : 'js.liveness.generic';
      if (!seen[key]) {
        seen[key] = true;
        out.push(t(key));
      }
    });
    return out.length ? out : [t('js.liveness.generic')];
  }

  return { run: run, explain: explain };
})();
