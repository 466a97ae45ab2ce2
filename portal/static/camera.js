// The portal's camera: start a stream, take one frame as JPEG, stop, and
// say why the camera cannot be used. portal.js drives it; it knows nothing
// about steps or uploads. What it says is a key of the page's message
// catalog (js.camera_*), which portal.js puts in the applicant's language.
window.portalCamera = (function () {
  'use strict';

  // JPEG quality of a frame: fine print and the MRZ must stay readable.
  var QUALITY = 0.92;

  function supported() {
    return !!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia);
  }

  // start opens the camera facing "environment" (documents) or "user"
  // (selfies) into video and resolves with the stream once frames play.
  // The resolution is a wish: phones give what they have.
  function start(video, facing) {
    return navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: facing }, width: { ideal: 1920 }, height: { ideal: 1080 } }
    }).then(function (stream) {
      video.srcObject = stream;
      return video.play().then(function () { return stream; }, function (err) {
        stop(video, stream);
        throw err;
      });
    });
  }

  function stop(video, stream) {
    if (stream) {
      stream.getTracks().forEach(function (t) { t.stop(); });
    }
    video.srcObject = null;
  }

  // frame draws the current video frame, at the camera's full resolution,
  // on canvas and resolves with it as a JPEG blob.
  function frame(video, canvas) {
    return new Promise(function (resolve, reject) {
      if (!video.videoWidth) {
        reject(new Error('js.camera_not_ready'));
        return;
      }
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (blob) {
        if (blob) {
          resolve(blob);
        } else {
          reject(new Error('js.camera_no_frame'));
        }
      }, 'image/jpeg', QUALITY);
    });
  }

  // message is the catalog key that explains why the camera did not
  // start and what to do instead.
  function message(err) {
    switch (err && err.name) {
      case 'NotAllowedError':
      case 'SecurityError':
        return 'js.camera_denied';
      case 'NotFoundError':
      case 'OverconstrainedError':
        return 'js.camera_not_found';
      case 'NotReadableError':
      case 'AbortError':
        return 'js.camera_busy';
    }
    return 'js.camera_failed';
  }

  return { supported: supported, start: start, stop: stop, frame: frame, message: message };
})();
