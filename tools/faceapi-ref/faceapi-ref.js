// faceapi-ref prints what @vladmandic/face-api finds in face images, as
// JSON on stdout, for kycd's Go parity test (face/faceapi_parity_test.go):
//
//   node faceapi-ref.js [--input-size 416] [--score 0.5] FILE...
//
// {"<file base name>": {"width": W, "height": H, "faces": [{"score": s,
//   "box": {x, y, w, h}, "landmarks": [[x, y] × 68],
//   "alignedRect": {x, y, w, h}, "descriptor": [128 numbers]}]}}
//
// It runs face-api's own pipeline, detectAllFaces(tiny face detector)
// .withFaceLandmarks(tiny) .withFaceDescriptors(), on the pure-JS CPU
// backend of TensorFlow.js (no native add-on) and decodes images with the
// pure-JS jpeg-js and pngjs. The weights are the ones kycd embeds,
// read from ../../face/models.
'use strict';

const fs = require('fs');
const path = require('path');
const jpeg = require('jpeg-js');
const { PNG } = require('pngjs');
// The node-wasm bundle is the one whose only dependencies are pure JS
// (@tensorflow/tfjs and the wasm backend); the cpu backend is selected
// below, the wasm one is never used.
const faceapi = require('@vladmandic/face-api/dist/face-api.node-wasm.js');

const { tf } = faceapi;

function decode(file) {
  const buf = fs.readFileSync(file);
  let width; let height; let rgba;
  if (buf[0] === 0x89 && buf[1] === 0x50) {
    const png = PNG.sync.read(buf);
    ({ width, height } = png);
    rgba = png.data;
  } else {
    const img = jpeg.decode(buf, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
    ({ width, height } = img);
    rgba = img.data;
  }
  // Drop alpha as tf.node.decodeImage(…, 3) would: the colour channels as
  // stored, not composited over any background.
  const rgb = new Int32Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height; i++, j += 3) {
    rgb[j] = rgba[i * 4];
    rgb[j + 1] = rgba[i * 4 + 1];
    rgb[j + 2] = rgba[i * 4 + 2];
  }
  return { width, height, tensor: tf.tensor3d(rgb, [height, width, 3], 'int32') };
}

const rect = (b) => ({ x: b.x, y: b.y, w: b.width, h: b.height });

async function main() {
  const args = process.argv.slice(2);
  let inputSize = 416;
  let scoreThreshold = 0.5;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--input-size') inputSize = Number(args[++i]);
    else if (args[i] === '--score') scoreThreshold = Number(args[++i]);
    else files.push(args[i]);
  }
  await tf.setBackend('cpu');
  await tf.ready();
  const models = path.join(__dirname, '..', '..', 'face', 'models');
  await faceapi.nets.tinyFaceDetector.loadFromDisk(models);
  await faceapi.nets.faceLandmark68TinyNet.loadFromDisk(models);
  await faceapi.nets.faceRecognitionNet.loadFromDisk(models);
  const opts = new faceapi.TinyFaceDetectorOptions({ inputSize, scoreThreshold });

  const out = {};
  for (const file of files) {
    const { width, height, tensor } = decode(file);
    const results = await faceapi.detectAllFaces(tensor, opts).withFaceLandmarks(true).withFaceDescriptors();
    tensor.dispose();
    out[path.basename(file)] = {
      width,
      height,
      faces: results.map((r) => ({
        score: r.detection.score,
        box: rect(r.detection.box),
        landmarks: r.landmarks.positions.map((p) => [p.x, p.y]),
        alignedRect: rect(r.landmarks.align(null, { useDlibAlignment: true })),
        descriptor: Array.from(r.descriptor),
      })),
    };
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
