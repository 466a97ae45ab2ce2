// The portal's camera: start a stream, take one frame as JPEG, stop, and
// say in the applicant's words why the camera cannot be used. portal.js
// drives it; it knows nothing about steps or uploads.
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
        reject(new Error('The camera is not ready yet. Wait a moment, then take the photo again.'));
        return;
      }
      canvas.width = video.videoWidth;
      canvas.height = video.videoHeight;
      canvas.getContext('2d').drawImage(video, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (blob) {
        if (blob) {
          resolve(blob);
        } else {
          reject(new Error('The photo could not be taken. Try again, or upload a photo instead.'));
        }
      }, 'image/jpeg', QUALITY);
    });
  }

  // message explains why the camera did not start and what to do instead.
  function message(err) {
    switch (err && err.name) {
      case 'NotAllowedError':
      case 'SecurityError':
        return 'Camera access was refused. Allow the camera in your browser settings and reload the page, or upload a photo instead.';
      case 'NotFoundError':
      case 'OverconstrainedError':
        return 'No camera was found on this device. Upload a photo instead.';
      case 'NotReadableError':
      case 'AbortError':
        return 'The camera is in use by another app or could not start. Close other apps using it and try again, or upload a photo instead.';
    }
    return 'The camera could not start. Upload a photo instead.';
  }

  return { supported: supported, start: start, stop: stop, frame: frame, message: message };
})();
