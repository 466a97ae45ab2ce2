// A webhook receiver for kycd in Node with no npm dependencies (node:http
// and node:crypto), to copy into your own service. It checks every
// delivery's X-Svc-Signature exactly as kycd signs it (docs/quickstart.md,
// "Verify the webhook"), answers 204 to a valid one and 400 to anything
// else, and prints one line per delivery:
//
//   verified svc.kyc.request.approved kev_… kyc_… approved
//   duplicate kev_…                      (the same eventId again: acknowledged, not handled twice)
//   rejected: signature does not match   (answered 400)
//
//   WEBHOOK_SECRET=whsec_… node docs/examples/receiver-node/receiver.js 127.0.0.1:9001
'use strict';

const crypto = require('node:crypto');
const http = require('node:http');

// How far the signature's timestamp may be from this clock, either way:
// kycd's rule (spec §6.4).
const TOLERANCE_SECONDS = 300;

// verify throws unless rawBody (a Buffer, before JSON.parse) carries a
// valid header: the only version is v1, t is within 300 s of now, and one
// sig is the lower-case hex HMAC-SHA256 of "<t>.<body>" keyed with the
// secret's UTF-8 bytes (whsec_ prefix included), compared in constant time.
// During a secret rotation with dual signing there are two sig= parts: any
// match will do. Unknown key=value parts are ignored, as kycd's own Verify does.
function verify(secret, header, rawBody, nowSeconds = Math.floor(Date.now() / 1000)) {
  const parts = String(header || '').split(',');
  if (parts[0].trim() !== 'v1') throw new Error('no v1 signature');
  let ts = null;
  const sigs = [];
  for (const part of parts.slice(1)) {
    const p = part.trim();
    const eq = p.indexOf('=');
    if (eq < 0) throw new Error('malformed signature header');
    const k = p.slice(0, eq);
    const v = p.slice(eq + 1);
    if (k === 't') {
      if (ts !== null) throw new Error('more than one t=');
      ts = v;
    } else if (k === 'sig') {
      if (!/^[0-9a-f]{64}$/.test(v)) throw new Error('sig= must be 64 lower-case hex characters');
      sigs.push(Buffer.from(v, 'hex'));
    }
  }
  if (ts === null || !/^\d+$/.test(ts) || sigs.length === 0) {
    throw new Error('malformed signature header: it needs t= and sig=');
  }
  // BigInt keeps any length of digits exact; kycd signs the decimal seconds
  // as it wrote them, and formatting the parsed number again is what kycd's
  // Verify does too (so "t=0123" is checked as 123).
  const t = BigInt(ts);
  const skew = BigInt(nowSeconds) - t;
  if (skew > BigInt(TOLERANCE_SECONDS) || skew < -BigInt(TOLERANCE_SECONDS)) {
    throw new Error('timestamp more than 300 s from this clock');
  }
  const want = crypto.createHmac('sha256', secret).update(`${t.toString()}.`).update(rawBody).digest();
  let match = false;
  for (const s of sigs) {
    if (crypto.timingSafeEqual(want, s)) match = true;
  }
  if (!match) throw new Error('signature does not match');
}

function main() {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) {
    console.error("receiver-node: set WEBHOOK_SECRET to the endpoint's whsec_… secret");
    process.exit(1);
  }
  const [host, port] = (process.argv[2] || '127.0.0.1:9001').split(/:(?=\d+$)/);
  const seen = new Set(); // eventIds handled; a real service keeps them in its database
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end('POST only');
      return;
    }
    // The raw bytes, as received: the signature covers them, not a
    // re-encoding of the parsed JSON.
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > 1 << 20) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let event;
      try {
        verify(secret, req.headers['x-svc-signature'], body);
        event = JSON.parse(body.toString('utf8'));
        if (!event.eventId) throw new Error('signed, but not an event');
      } catch (err) {
        console.log(`rejected: ${err.message}`);
        res.writeHead(400, { 'Content-Type': 'text/plain' }).end(err.message);
        return;
      }
      // kycd may deliver an event more than once (a retry after a lost
      // answer): acknowledge it again, handle it once.
      if (seen.has(event.eventId)) {
        console.log(`duplicate ${event.eventId}`);
      } else {
        seen.add(event.eventId);
        console.log(`verified ${event.eventType} ${event.eventId} ${event.publicId || ''} ${event.status || ''}`);
      }
      res.writeHead(204).end();
    });
  });
  server.listen(Number(port), host, () => console.error(`receiver-node: listening on ${host}:${port}`));
}

module.exports = { verify };
if (require.main === module) main();
