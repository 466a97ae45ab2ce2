// The selfie's camera check: the server draws a challenge (look straight,
// then two or three head movements) and a deadline; this script shows
// each instruction over the live camera view, takes a few small frames
// per step and sends them with the session's nonce. The server looks at
// the frames and decides; nothing here decides anything. portal.js drives
// it; it knows nothing about steps or uploads besides its own.
window.portalLiveness = (function () {
  'use strict';

  // Per step: show the instruction, then take a frame at each of these
  // delays (ms). A person needs about half a second to read and start
  // moving, and the movement is held by the second frame.
  var FRAME_AT = [1100, 1700];
  var STEP_MS = 2000;
  // Frames are small: the longer side at most 640 px, JPEG quality 0.85.
  var MAX_SIDE = 640;
  var QUALITY = 0.85;

  // Words for each movement, from the applicant's point of view; the
  // preview is mirrored, so their left is the screen's left.
  var MOVES = {
    look_straight: { text: 'Look straight at the camera', arrow: '●' },
    turn_left: { text: 'Turn your head to your left', arrow: '←' },
    turn_right: { text: 'Turn your head to your right', arrow: '→' },
    look_up: { text: 'Tilt your head up', arrow: '↑' },
    look_down: { text: 'Tilt your head down', arrow: '↓' },
    move_closer: { text: 'Bring your face closer to the camera', arrow: '⤢' }
  };

  // Why a check failed, in words the applicant can act on, by the
  // server's reason code.
  var REASONS = {
    LIVENESS_MOVEMENT_NOT_SEEN: 'We could not see your head move as asked. When each instruction appears, make a clear movement and hold it until the next one.',
    LIVENESS_NOT_FACING_CAMERA: 'At the start, look straight at the camera.',
    LIVENESS_NO_FACE: 'Your face was not visible in every picture. Keep your whole face inside the oval, in good light.',
    LIVENESS_MULTIPLE_FACES: 'More than one face was visible. Make sure you are alone in front of the camera.',
    LIVENESS_DIFFERENT_PEOPLE: 'The pictures did not all show the same person. Only the person being verified should be in front of the camera.',
    LIVENESS_DUPLICATE_FRAMES: 'The camera sent the same picture more than once. Use your device’s own camera, not a photo or a virtual camera.',
    LIVENESS_TOO_LATE: 'The pictures took too long to arrive. Check your internet connection, then try again.'
  };
  var GENERIC = 'The check could not be completed. Please try again.';

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

  // run performs one session. open opens it (resolving with the server's
  // answer: id, nonce, moves), send posts the frames (resolving with the
  // server's verdict). show(move, text, arrow, n, total) puts an
  // instruction on screen. It resolves with {verdict, frames} or rejects
  // with an Error whose message is for the applicant.
  function run(o) {
    var session;
    var frames = []; // {blob, step}
    return o.open().then(function (s) {
      session = s;
      var steps = ['look_straight'].concat(s.moves);
      var chain = Promise.resolve();
      steps.forEach(function (move, i) {
        chain = chain.then(function () {
          var m = MOVES[move] || { text: move, arrow: '' };
          o.show(move, m.text, m.arrow, i + 1, steps.length);
          var started = Date.now();
          var shots = FRAME_AT.map(function (at) {
            return wait(at).then(function () { return grab(o.video, o.canvas); }).then(function (blob) {
              frames.push({ blob: blob, step: i, at: Date.now() - started });
            });
          });
          return Promise.all(shots.concat([wait(STEP_MS)]));
        });
      });
      return chain;
    }).then(function () {
      o.show('', '', '', 0, 0);
      frames.sort(function (a, b) { return a.step - b.step || a.at - b.at; });
      var form = new FormData();
      form.append('nonce', session.nonce);
      form.append('steps', frames.map(function (f) { return f.step; }).join(','));
      frames.forEach(function (f, i) { form.append('frame', f.blob, 'frame' + i + '.jpg'); });
      return o.send(session.id, form);
    }).then(function (verdict) {
      return { verdict: verdict, frames: frames };
    });
  }

  // explain turns a failed verdict into sentences for the applicant.
  function explain(verdict) {
    var seen = {};
    var out = [];
    (verdict.failed || []).forEach(function (f) {
      var text = REASONS[f.code] || GENERIC;
      if (!seen[text]) {
        seen[text] = true;
        out.push(text);
      }
    });
    return out.length ? out : [GENERIC];
  }

  return { run: run, explain: explain, moves: MOVES };
})();
